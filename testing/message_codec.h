// gRPC's per-message codec as core calls it, and the same contract on real
// zlib. gRPC core (src/core/lib/compression/message_compress.h, C++
// linkage, exported by libgrpc 1.51 through 1.83) compresses and inflates
// every message through grpc_msg_compress and grpc_msg_decompress; once the
// core codec is active, their zlib calls are served by the pools. Tests and
// benchmarks call them to go through gRPC's own code, and compare them with
// the reference below, which is what they do without pooled_gzip.

#ifndef POOLED_GZIP_TESTING_MESSAGE_CODEC_H_
#define POOLED_GZIP_TESTING_MESSAGE_CODEC_H_

#include <grpc/compression.h>
#include <grpc/slice_buffer.h>

#include <string>

int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output);
int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output);

namespace pooled_gzip::test_support {

using MessageCodecFn = int (*)(grpc_compression_algorithm, grpc_slice_buffer*,
                               grpc_slice_buffer*);

// The bytes of `buffer` in one string, for comparing what the codec made.
std::string Flatten(const grpc_slice_buffer& buffer);

// Core's contract (message_compress.cc) on fresh real zlib streams at
// zlib's default level, no cap, neither pooled nor counted.
// Compress: 1 with the stream appended iff it leaves `output` strictly
// shorter than `input`; else 0 with `input` appended. Any algorithm but
// gzip and deflate: 0 with `input` appended.
// Decompress: 1 with the message appended iff `input` is exactly one valid
// stream; else 0, `output` as it was. NONE: 1 with `input` appended; any
// other algorithm but gzip and deflate: 0.
int ReferenceCompress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output);
int ReferenceDecompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output);

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_MESSAGE_CODEC_H_
