// What a compression filter in an LTO gRPC archive calls: gRPC's message
// codec, from another LTO object (lto_grpc_filter.cc).

#ifndef POOLED_GZIP_TEST_PACKAGE_STATIC_CONSUMER_LTO_GRPC_FILTER_H_
#define POOLED_GZIP_TEST_PACKAGE_STATIC_CONSUMER_LTO_GRPC_FILTER_H_

#include <grpc/compression.h>
#include <grpc/slice_buffer.h>

int LtoFilterCompress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output);
int LtoFilterDecompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output);

#endif  // POOLED_GZIP_TEST_PACKAGE_STATIC_CONSUMER_LTO_GRPC_FILTER_H_
