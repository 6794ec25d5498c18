#include "codec/backend_support.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>

#include "absl/strings/str_cat.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Lets a zlib inflater that starts the message from its first byte resume
// output where another decoder stopped: the first `skip` bytes go to
// `scratch`, then `open_chunk` (the sink's current chunk) is zlib's first
// real chunk, then the sink's own chunks follow.
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

  // Commits the lent chunk if zlib never took it, and whatever zlib left
  // open, so that every chunk the sink handed out is committed once.
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

// The first `out.size()` bytes of the input; false if it is shorter.
bool CopyPrefix(Pieces pieces, absl::Span<uint8_t> out) {
  size_t filled = 0;
  for (absl::string_view piece : pieces) {
    if (filled == out.size()) break;
    const size_t n = std::min(piece.size(), out.size() - filled);
    std::memcpy(out.data() + filled, piece.data(), n);
    filled += n;
  }
  return filled == out.size();
}

}  // namespace

size_t FirstChunkGuess(Format format, Pieces input) {
  if (format == Format::kGzip) {
    if (std::optional<uint32_t> size = GzipTrailerSize(input)) {
      return size_t{*size} + 1;
    }
  }
  return std::max<size_t>(TotalSize(input) * 4, 256);
}

absl::Status StreamTooLarge(Format format, size_t max) {
  return absl::ResourceExhaustedError(absl::StrCat(
      FormatName(format), " stream would be more than ", max, " bytes"));
}

absl::Status MessageTooLarge(Format format, size_t max) {
  return absl::ResourceExhaustedError(absl::StrCat(
      FormatName(format), " message inflates to more than ", max, " bytes"));
}

absl::Status TruncatedMessage(Format format) {
  return absl::DataLossError(
      absl::StrCat(FormatName(format), " message is truncated"));
}

absl::Status CorruptMessage(Format format, absl::string_view detail) {
  return absl::DataLossError(
      absl::StrCat(FormatName(format), " message is corrupt: ", detail));
}

absl::Status TrailingBytes(Format format) {
  return absl::DataLossError(absl::StrCat(
      FormatName(format), " message has bytes after the end of its stream"));
}

void WriteAll(absl::string_view data, ChunkSink* sink) {
  while (!data.empty()) {
    absl::Span<char> chunk = sink->NextChunk(data.size());
    const size_t n = std::min(chunk.size(), data.size());
    std::memcpy(chunk.data(), data.data(), n);
    sink->CommitChunk(n);
    data.remove_prefix(n);
  }
}

size_t PlainHeaderBytes(Format format, Pieces input) {
  if (TotalSize(input) < MinStreamBytes(format)) return 0;
  if (format == Format::kGzip) {
    uint8_t header[4];
    if (!CopyPrefix(input, absl::MakeSpan(header))) return 0;
    const bool plain = header[0] == 0x1f && header[1] == 0x8b &&
                       header[2] == 8 && header[3] == 0;
    return plain ? kPlainGzipHeaderBytes : 0;
  }
  uint8_t header[2];
  if (!CopyPrefix(input, absl::MakeSpan(header))) return 0;
  const unsigned cmf = header[0];
  const unsigned flg = header[1];
  const bool plain = (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 &&
                     ((cmf << 8) | flg) % 31 == 0 && (flg & 0x20) == 0;
  return plain ? 2 : 0;
}

char* ReusableBuffer::Get(size_t size) {
  size = std::max<size_t>(size, 1);
  if (size > capacity_) {
    data_.reset();
    capacity_ = 0;
    data_.reset(new (std::nothrow) char[size]);
    if (data_ == nullptr) return nullptr;
    capacity_ = size;
  }
  return data_.get();
}

void ReusableBuffer::Trim() {
  if (capacity_ > kKeepBytes) {
    data_.reset();
    capacity_ = 0;
  }
}

const char* Contiguous(Pieces pieces, size_t total, ReusableBuffer* buffer) {
  // Libraries may not take a null pointer even for no bytes.
  static constexpr char kNothing[1] = {0};
  const char* only = kNothing;
  size_t non_empty = 0;
  for (absl::string_view piece : pieces) {
    if (piece.empty()) continue;
    only = piece.data();
    ++non_empty;
  }
  if (non_empty <= 1) return only;
  char* copy = buffer->Get(total);
  if (copy == nullptr) return nullptr;
  size_t offset = 0;
  for (absl::string_view piece : pieces) {
    std::memcpy(copy + offset, piece.data(), piece.size());
    offset += piece.size();
  }
  return copy;
}

absl::Status ZlibFallback::Inflate(Pieces input, size_t max_output_bytes,
                                   ChunkSink* sink, size_t committed,
                                   absl::Span<char> open_chunk) {
  // zlib is not to write past the budget; the part of a lent chunk beyond
  // it is never used.
  const size_t budget = BudgetFor(max_output_bytes);
  const size_t room = budget > committed ? budget - committed : 0;
  if (!open_chunk.empty() && room == 0) {
    sink->CommitChunk(0);
    open_chunk = {};
  }
  open_chunk = open_chunk.first(std::min(open_chunk.size(), room));
  // Only a message that fails after output (hostile or broken) gets here
  // with committed bytes: its scratch buffer lives for this call only.
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
  if (used_ && (inflater_ == nullptr || !inflater_->Reset())) {
    inflater_.reset();
  }
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

bool ZlibFallback::Reset() {
  if (!used_) return true;
  used_ = false;
  if (inflater_ != nullptr && !inflater_->Reset()) inflater_.reset();
  return true;
}

size_t ZlibFallback::HeapBytes() const {
  return inflater_ != nullptr ? inflater_->HeapBytes() : 0;
}

}  // namespace internal
}  // namespace pooled_gzip
