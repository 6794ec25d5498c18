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
                      grpc_slice_buffer* output);

// Flattens a slice buffer, for checking round trips.
std::string Flatten(const grpc_slice_buffer& buffer);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_CODEC_PATHS_H_
