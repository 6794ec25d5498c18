// The two ways a message gets gzipped, side by side, on the data structure
// gRPC core hands around (grpc_slice_buffer):
//  - Stock*: a faithful copy of gRPC 1.51 core's message_compress.cc, which
//    builds and tears down a zlib stream for every message and writes 1 KiB
//    output slices;
//  - Pooled*: the pooled_gzip codec with a chosen backend, level and
//    format, called the way the core codec calls it (slices in, slices
//    out).
// Core's own functions are not exported by libgrpc, hence the replica.

#ifndef POOLED_GZIP_BENCH_CODEC_PATHS_H_
#define POOLED_GZIP_BENCH_CODEC_PATHS_H_

#include <grpc/slice_buffer.h>

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "codec/codec.h"

namespace pooled_gzip::bench {

// Appends the gzip form of `input` to `output`; like core, falls back to
// appending `input` itself (and returns false) when the result would not be
// smaller. Returns true if `output` holds compressed data.
bool StockCompress(grpc_slice_buffer* input, grpc_slice_buffer* output);

// Appends the inflated form of gzip `input` to `output`; false on error.
bool StockDecompress(grpc_slice_buffer* input, grpc_slice_buffer* output);

// Appends the gzip form of `input` to `output` with the pooled codec and
// `options` (backend, level); false on error. Every message is compressed,
// even one that grows, so that the codec's own cost is what is measured.
bool PooledCompress(const grpc_slice_buffer& input,
                    const pooled_gzip::internal::CompressOptions& options,
                    grpc_slice_buffer* output);

// Appends the inflated form of `input`, a stream of `format`, to `output`
// with the pooled codec of `backend`; false on error.
bool PooledDecompress(const grpc_slice_buffer& input,
                      pooled_gzip::internal::Format format, Backend backend,
                      grpc_slice_buffer* output,
                      pooled_gzip::internal::Strictness strictness =
                          pooled_gzip::internal::Strictness::kDecoder);

enum class Direction { kSent, kReceived };

// How gRPC 1.51 core slices the message it hands the codec, as measured
// over loopback with the echo service and records payloads (counting the
// slices in the core codec's entry points):
//  - sent: grpcpp serializes a message in blocks of up to 1 MiB, so one
//    slice up to that; a 1 MiB payload in a bytes field (4 bytes of field
//    header ahead of it) came as 1 MiB + 4 B;
//  - received: sub-slices of the transport's reads, 64 KiB each once a
//    connection is busy (8 KiB on a new one), the message starting
//    anywhere in the first: 0.9 KB messages came as one slice or two cut
//    anywhere, 35 KB ones likewise, 540 KB ones as 9 or 10.
// Reproduced here: sent, cut at 1 MiB boundaries counted from 4 bytes
// before the payload (a message under 1 MiB - 4 B stays one slice);
// received, cut at 64 KiB reads, the message starting half way into the
// first (its first slice half the message, 32 KiB at most).
std::vector<size_t> CoreSliceLengths(Direction direction, size_t length);

// Appends `bytes` to `buffer` as static slices of `lengths`, which refer to
// `bytes`.
void AddSlices(absl::string_view bytes, const std::vector<size_t>& lengths,
               grpc_slice_buffer* buffer);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_CODEC_PATHS_H_
