// The shared flavour's definitions of gRPC's two message-codec functions,
// with gRPC's declarations (src/core/lib/compression/message_compress.h,
// C++ linkage) and exported, though they are not the library's API: where
// libpooled_gzip precedes libgrpc in the symbol lookup order, gRPC's calls
// land here without any slot pointed (seam/activation.h). The static flavour
// leaves them out: a program that links gRPC's archives has gRPC's own.

#include <grpc/compression.h>
#include <grpc/slice_buffer.h>

#include "pooled_gzip/export.h"
#include "seam/activation.h"

POOLED_GZIP_EXPORT int grpc_msg_compress(grpc_compression_algorithm algorithm,
                                         grpc_slice_buffer* input,
                                         grpc_slice_buffer* output);
POOLED_GZIP_EXPORT int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                                           grpc_slice_buffer* input,
                                           grpc_slice_buffer* output);

int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return pooled_gzip::internal::RoutedCompress(algorithm, input, output);
}

int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return pooled_gzip::internal::RoutedDecompress(algorithm, input, output);
}
