#include "codec/zlib_fallback.h"

#include <algorithm>
#include <new>

#include "absl/strings/str_cat.h"
#include "codec/stream_io.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Lets zlib resume another decoder's output: the first `skip` bytes go to
// `scratch`, then into the lent `open_chunk`, then the sink's chunks.
class ResumingSink final : public ChunkSink {
 public:
  ResumingSink(ChunkSink* sink, size_t skip, absl::Span<char> scratch,
               absl::Span<char> open_chunk)
      : sink_(sink), skip_(skip), scratch_(scratch), lent_(open_chunk) {}

  absl::Span<char> NextChunk(size_t size_hint) override {
    if (skip_ > 0) {
      state_ = State::kScratch;
      return scratch_.first(std::min({size_hint, skip_, scratch_.size()}));
    }
    state_ = State::kSinkChunk;
    if (!lent_.empty()) {
      const absl::Span<char> chunk = lent_;
      lent_ = {};
      return chunk;
    }
    return sink_->NextChunk(size_hint);
  }

  void CommitChunk(size_t used) override {
    if (state_ == State::kScratch) {
      skip_ -= std::min(used, skip_);
    } else if (state_ == State::kSinkChunk) {
      sink_->CommitChunk(used);
    }
    state_ = State::kNone;
  }

  // Commits the lent chunk if unused, and whatever zlib left open.
  void Finish() {
    if (state_ == State::kSinkChunk) sink_->CommitChunk(0);
    state_ = State::kNone;
    if (!lent_.empty()) sink_->CommitChunk(0);
    lent_ = {};
  }

  // Whether zlib reproduced all the output the other decoder committed.
  bool caught_up() const { return skip_ == 0; }

 private:
  enum class State { kNone, kScratch, kSinkChunk };

  ChunkSink* sink_;
  size_t skip_;
  absl::Span<char> scratch_;
  absl::Span<char> lent_;
  State state_ = State::kNone;
};

// Room for output zlib reproduces only to skip it.
constexpr size_t kScratchBytes = 64 * 1024;

}  // namespace

absl::Status ZlibFallback::Inflate(Pieces input, size_t max_output_bytes,
                                   ChunkSink* sink, size_t committed,
                                   absl::Span<char> open_chunk) {
  // The part of a lent chunk past the budget is never used.
  const size_t budget = BudgetFor(max_output_bytes);
  const size_t room = budget > committed ? budget - committed : 0;
  if (!open_chunk.empty() && room == 0) {
    sink->CommitChunk(0);
    open_chunk = {};
  }
  open_chunk = open_chunk.first(std::min(open_chunk.size(), room));
  // Only a message that fails after output (hostile or broken) comes with
  // committed bytes, so its scratch lives for this call only.
  std::unique_ptr<char[]> scratch;
  if (committed > 0) {
    scratch.reset(new (std::nothrow) char[kScratchBytes]);
    if (scratch == nullptr) {
      if (!open_chunk.empty()) sink->CommitChunk(0);
      return absl::InternalError("no memory to decide the message with zlib");
    }
  }
  ResumingSink resuming(
      sink, committed,
      absl::MakeSpan(scratch.get(), scratch != nullptr ? kScratchBytes : 0),
      open_chunk);
  Reset();
  if (inflater_ == nullptr) inflater_ = NewInflater({Backend::kZlib, format_});
  if (inflater_ == nullptr) {
    resuming.Finish();
    return absl::InternalError("cannot create a zlib decompressor");
  }
  used_ = true;
  absl::Status status = inflater_->Inflate(input, max_output_bytes, &resuming);
  resuming.Finish();
  if (status.ok() && !resuming.caught_up()) {
    return absl::InternalError(absl::StrCat(
        FormatName(format_), " decoders disagree on the message's length"));
  }
  return status;
}

void ZlibFallback::Reset() {
  if (!used_) return;
  used_ = false;
  if (inflater_ != nullptr && !inflater_->Reset()) inflater_.reset();
}

size_t ZlibFallback::HeapBytes() const {
  return inflater_ != nullptr ? inflater_->HeapBytes() : 0;
}

}  // namespace internal
}  // namespace pooled_gzip
