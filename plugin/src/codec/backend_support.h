// What the libdeflate and ISA-L backends share: walking the input pieces,
// chunk sizes and errors worded as the zlib backend words them, a reusable
// buffer, and the zlib decoder that decides whatever their fast paths do not.

#ifndef POOLED_GZIP_SRC_CODEC_BACKEND_SUPPORT_H_
#define POOLED_GZIP_SRC_CODEC_BACKEND_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "codec/backend.h"
#include "codec/chunk_sink.h"
#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

// The zlib backend's chunk cap, for the same reason: a chunk plus gRPC's
// slice header stays under glibc's mmap threshold (128 KiB).
inline constexpr size_t kMaxChunkBytes = 128 * 1024 - 1024;

// One byte past the limit is how an oversized stream is recognised.
inline size_t BudgetFor(size_t max_output_bytes) {
  return max_output_bytes == std::numeric_limits<size_t>::max()
             ? max_output_bytes
             : max_output_bytes + 1;
}

// RESOURCE_EXHAUSTED, worded as the zlib backend words it; `what` is
// "stream would be" or "message inflates to".
absl::Status TooLarge(absl::string_view what, Format format, size_t max);
absl::Status TrailingBytes(Format format);

// Walks the non-empty stretches of the input pieces from byte `skip` on,
// each at most `max_stretch` bytes (ISA-L counts in 32 bits).
class PieceCursor {
 public:
  PieceCursor(Pieces pieces, size_t skip, size_t max_stretch);
  // The next stretch; false when the input is exhausted.
  bool Next(absl::string_view* stretch);
  // Whether any byte is left after the last stretch returned.
  bool HasMore() const;

 private:
  void SkipEmpty();
  Pieces pieces_;
  size_t max_stretch_;
  size_t index_ = 0;
  size_t offset_ = 0;
};

// The first `out.size()` bytes of the input; false if it is shorter.
bool CopyPrefix(Pieces pieces, absl::Span<uint8_t> out);

// Hands `data` to the sink, in as many chunks as the sink cuts it into.
void WriteAll(absl::string_view data, ChunkSink* sink);

// A heap buffer kept from message to message, so that the common sizes
// allocate nothing; Trim() frees it once it has grown past kKeepBytes, so
// that one huge message does not pin its size in every pooled context.
class ReusableBuffer {
 public:
  static constexpr size_t kKeepBytes = (size_t{2} << 20) + (64 << 10);
  // At least `size` bytes (one or more), or null if out of memory.
  char* Get(size_t size);
  void Trim();
  size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
};

// The input as one contiguous block: the only non-empty piece itself, or a
// copy in `buffer`. Null only if the copy cannot be allocated.
const char* Contiguous(Pieces pieces, size_t total, ReusableBuffer* buffer);

// A zlib inflater, created on first use, that decides a message exactly as
// the zlib backend would, also when a faster decoder already wrote part of
// the output: the libdeflate and ISA-L readers end every message they cannot
// finish themselves here, so their answers (output, DATA_LOSS,
// RESOURCE_EXHAUSTED, and at most limit + 1 bytes asked of the sink) are the
// zlib backend's.
class ZlibFallback {
 public:
  explicit ZlibFallback(Format format) : format_(format) {}

  // Inflates all of `input` into `sink`, given that the sink already holds
  // the message's first `committed` bytes (zlib decodes them again into a
  // scratch buffer: two correct decoders agree on them) and that `open_chunk`,
  // if not empty, is the sink's current chunk, not yet committed, which
  // zlib then writes first. Every chunk taken from the sink is committed
  // before this returns, whatever the outcome.
  absl::Status Inflate(Pieces input, size_t max_output_bytes, ChunkSink* sink,
                       size_t committed = 0, absl::Span<char> open_chunk = {});
  bool Reset();
  size_t HeapBytes() const;

 private:
  Format format_;
  std::unique_ptr<Inflater> inflater_;
  bool used_ = false;  // inflater_ needs a Reset before the next message
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_BACKEND_SUPPORT_H_
