// The compression filter's side of the LTO stand-in (lto_grpc_codec.cc):
// a call from one LTO object to gRPC's codec in another, resolved by the
// link-time optimizer; only the codec's zlib calls are routed.

#include "lto_grpc_filter.h"

// gRPC's declarations (src/core/lib/compression/message_compress.h).
int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output);
int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output);

int LtoFilterCompress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return grpc_msg_compress(algorithm, input, output);
}

int LtoFilterDecompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return grpc_msg_decompress(algorithm, input, output);
}
