// Where a fast decoder hands a message to zlib, and the rules of that
// hand-over, kept here in one place.
//
// A fast decoder (libdeflate, ISA-L) answers only for a message it
// finishes cleanly within the limit; zlib decides every other message from
// its first byte, so that each refusal is the zlib backend's, in its words.
// Between them, the fast readers, OutputWindow::Release (codec/stream_io.h)
// and ZlibFallback keep these rules:
//  1. One budget. The sink is asked for at most limit + 1 bytes in all
//     (BudgetFor), by the fast decoder and zlib together: what the fast
//     decoder committed counts against zlib's room, and zlib uses a chunk
//     it is lent only up to the budget.
//  2. Committed output stays. zlib decodes the bytes the fast decoder
//     committed again, into scratch memory, and goes on from there. Two
//     correct decoders agree on them, and zlib refuses at or before any
//     point where a lenient one would not; a zlib stream that ends before
//     catching up fails the message (INTERNAL).
//  3. The open chunk is lent. A chunk the fast decoder took but did not
//     commit (OutputWindow::Release) is zlib's first chunk. A fast decoder
//     sizes it as the zlib backend sizes its first one, so that zlib meets
//     a corrupt stream's error at the same point of its output
//     (LibdeflateInflater::Inflate says why that matters).
//  4. Each chunk is committed once. Whatever the outcome, every chunk the
//     sink handed out is committed exactly once before Inflate returns (0
//     bytes for one zlib never wrote), so a sink that allocates per chunk
//     (a gRPC slice) frees or keeps each.

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
  // Ready for the next message; a zlib inflater that cannot be reset is
  // made again on next use.
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
