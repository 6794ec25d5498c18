// Moving a stream's bytes, for every backend alike.

#ifndef POOLED_GZIP_SRC_CODEC_STREAM_IO_H_
#define POOLED_GZIP_SRC_CODEC_STREAM_IO_H_

#include <algorithm>
#include <cstddef>
#include <limits>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "codec/backend.h"
#include "codec/chunk_sink.h"
#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

// Large enough that a 64 KiB message compresses into one chunk, and small
// enough that the chunk plus gRPC's slice header stays under glibc's default
// mmap threshold (128 KiB): an mmap per chunk would bring back page faults.
inline constexpr size_t kMaxChunkBytes = 128 * 1024 - 1024;

// One byte past the limit is how an oversized stream is recognised.
inline size_t BudgetFor(size_t max_output_bytes) {
  return max_output_bytes == std::numeric_limits<size_t>::max()
             ? max_output_bytes
             : max_output_bytes + 1;
}

// A first output chunk that usually holds the whole message: a gzip
// trailer's size plus one byte (so that the decoder meets the stream's end
// in it), else a guess. Untrusted: the output window caps it.
size_t FirstChunkGuess(Format format, Pieces input);

// Points a stream's input fields at the non-empty stretches of the input
// from byte `skip` on, each at most what the stream's count type holds.
template <typename Byte, typename Count>
class InputCursor {
 public:
  // A pooled stream still points at the input of its previous use.
  InputCursor(Pieces pieces, size_t skip, Byte** next_in, Count* avail_in)
      : pieces_(pieces), next_in_(next_in), avail_in_(avail_in) {
    *next_in_ = nullptr;
    *avail_in_ = 0;
    Skip(skip);
  }

  // False, leaving the stream as it is, when the input is exhausted.
  bool Feed() {
    if (index_ == pieces_.size()) return false;
    const absl::string_view stretch =
        pieces_[index_].substr(offset_, std::numeric_limits<Count>::max());
    // The libraries take a non-const pointer but only read through it.
    *next_in_ = reinterpret_cast<Byte*>(const_cast<char*>(stretch.data()));
    *avail_in_ = static_cast<Count>(stretch.size());
    Skip(stretch.size());
    return true;
  }

  // Whether any byte is left after the last stretch fed.
  bool HasMore() const { return index_ < pieces_.size(); }

 private:
  // Moves `bytes` on, and past empty pieces.
  void Skip(size_t bytes) {
    offset_ += bytes;
    while (index_ < pieces_.size() && offset_ >= pieces_[index_].size()) {
      offset_ -= pieces_[index_].size();
      ++index_;
    }
  }

  Pieces pieces_;
  Byte** next_in_;
  Count* avail_in_;
  size_t index_ = 0;
  size_t offset_ = 0;
};

// Keeps the sink's current chunk and a stream's output fields in step, and
// the output within a budget (BudgetFor). On every way out the open chunk
// is committed, or released to a caller that commits it.
template <typename Byte, typename Count>
class OutputWindow {
 public:
  // A pooled stream still points at the buffers of its previous use.
  OutputWindow(Byte** next_out, Count* avail_out, ChunkSink* sink,
               size_t budget)
      : next_out_(next_out),
        avail_out_(avail_out),
        sink_(sink),
        budget_(budget) {
    *next_out_ = nullptr;
    *avail_out_ = 0;
  }
  ~OutputWindow() { Close(); }

  // Commits the open chunk and opens the next, of at most `size_hint`
  // bytes; false, with no chunk open, once the budget is used up.
  bool Next(size_t size_hint) {
    Close();
    const size_t left = budget_ - committed_;
    if (left == 0) return false;
    chunk_ = sink_->NextChunk(std::min({kMaxChunkBytes, left, size_hint}));
    chunk_ = chunk_.first(
        std::min<size_t>(chunk_.size(), std::numeric_limits<Count>::max()));
    *next_out_ = reinterpret_cast<Byte*>(chunk_.data());
    *avail_out_ = static_cast<Count>(chunk_.size());
    open_ = true;
    return true;
  }

  void Close() {
    if (!open_) return;
    const size_t used = chunk_.size() - *avail_out_;
    Release();
    sink_->CommitChunk(used);
    committed_ += used;
  }

  // The open chunk (empty if none), now the caller's to commit.
  absl::Span<char> Release() {
    if (!open_) return {};
    open_ = false;
    *avail_out_ = 0;
    return chunk_;
  }

  size_t committed() const { return committed_; }
  // Bytes written so far, committed or not.
  size_t produced() const {
    return committed_ + (open_ ? chunk_.size() - *avail_out_ : 0);
  }

 private:
  Byte** next_out_;
  Count* avail_out_;
  ChunkSink* sink_;
  size_t budget_;
  absl::Span<char> chunk_;
  size_t committed_ = 0;
  bool open_ = false;
};

// Hands `data` to the sink, in as many chunks as the sink cuts it into.
void WriteAll(absl::string_view data, ChunkSink* sink);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_STREAM_IO_H_
