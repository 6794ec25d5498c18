// Where a fast decoder (libdeflate, ISA-L) hands a message to zlib. A fast
// decoder answers only for a message it finishes cleanly within the limit;
// zlib decides every other one from its first byte, so that each answer is
// the zlib backend's, in its words. The hand-over keeps these rules:
//  1. One budget. The sink is asked for at most limit + 1 bytes in all
//     (BudgetFor), by both decoders together.
//  2. Committed output stays. zlib decodes it again, into scratch memory,
//     and goes on from there: two correct decoders agree on it, and zlib
//     refuses at or before any point where a lenient one would not. A zlib
//     stream that ends before catching up fails the message (INTERNAL).
//  3. The open chunk is lent. A chunk the fast decoder took but did not
//     commit (OutputWindow::Release) is zlib's first, sized as the zlib
//     backend's first, so that zlib meets an error at the same point.
//  4. Each chunk the sink handed out is committed exactly once before
//     Inflate returns (0 bytes for one zlib never wrote).

#ifndef POOLED_GZIP_SRC_CODEC_ZLIB_FALLBACK_H_
#define POOLED_GZIP_SRC_CODEC_ZLIB_FALLBACK_H_

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "codec/backend.h"
#include "codec/chunk_sink.h"
#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

class ZlibFallback {
 public:
  explicit ZlibFallback(Format format) : format_(format) {}

  // Inflates all of `input` into `sink`, which already holds the message's
  // first `committed` bytes; `open_chunk`, if not empty, is the sink's
  // current chunk, not yet committed, which zlib writes first.
  absl::Status Inflate(Pieces input, size_t max_output_bytes, ChunkSink* sink,
                       size_t committed = 0, absl::Span<char> open_chunk = {});
  // A zlib inflater that cannot be reset is made again on next use.
  void Reset();
  size_t HeapBytes() const;

 private:
  Format format_;
  std::unique_ptr<Inflater> inflater_;
  bool used_ = false;  // inflater_ needs a Reset before the next message
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_ZLIB_FALLBACK_H_
