// A message as a stream of stored deflate blocks (RFC 1951, 3.2.4) in the
// gzip or zlib wrapper, written straight into a sink, for a caller that
// must hand over a valid stream of a message it decided not to compress.
// Storing needs no compressor: the stream is the message in blocks of at
// most 65,535 bytes, 5 bytes before each, the wrapper's header before them
// and its check value after, so nothing is allocated or kept. The bytes are
// those of libdeflate at level 0.

#ifndef POOLED_GZIP_SRC_CODEC_STORED_STREAM_H_
#define POOLED_GZIP_SRC_CODEC_STORED_STREAM_H_

#include <cstddef>

#include "codec/backend.h"
#include "codec/chunk_sink.h"
#include "codec/format.h"

namespace pooled_gzip {
namespace internal {

// The length of the stream for a message of `size` bytes: always longer.
size_t StoredStreamBytes(Format format, size_t size);

// Writes the concatenation of `input` into `sink` as that stream, asking
// the sink for chunks of what is left to write. Not counted as traffic.
void Store(Pieces input, Format format, ChunkSink* sink);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_STORED_STREAM_H_
