// The two ways a message gets gzipped, side by side, on the data structure
// gRPC core hands around (grpc_slice_buffer):
//  - Stock*: a faithful copy of gRPC 1.51 core's message_compress.cc, which
//    builds and tears down a zlib stream for every message and writes 1 KiB
//    output slices;
//  - Pooled*: the pooled_gzip codec, called the way the plugin calls it
//    (slices allocated to size on the send path, a std::string in raw mode).
// Core's own functions are not exported by libgrpc, hence the replica.

#ifndef POOLED_GZIP_BENCH_CODEC_PATHS_H_
#define POOLED_GZIP_BENCH_CODEC_PATHS_H_

#include <grpc/slice_buffer.h>

#include <string>

#include "absl/strings/string_view.h"

namespace pooled_gzip::bench {

// Appends the gzip form of `input` to `output`; like core, falls back to
// appending `input` itself (and returns false) when the result would not be
// smaller. Returns true if `output` holds compressed data.
bool StockCompress(grpc_slice_buffer* input, grpc_slice_buffer* output);

// Appends the inflated form of gzip `input` to `output`; false on error.
bool StockDecompress(grpc_slice_buffer* input, grpc_slice_buffer* output);

// Appends the gzip form of `input` to `output` with the pooled codec; false
// on error. Every message is compressed, as the plugin does.
bool PooledCompress(const grpc_slice_buffer& input, grpc_slice_buffer* output);

// Inflates gzip `input` into `out` with the pooled codec; false on error.
bool PooledDecompress(const grpc_slice_buffer& input, std::string* out);

// Flattens a slice buffer, for checking round trips.
std::string Flatten(const grpc_slice_buffer& buffer);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_CODEC_PATHS_H_
