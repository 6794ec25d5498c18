#include "seam/link_time_routing.h"

#include "seam/activation.h"
#include "seam/slot_rewrite.h"

// The symbol names are gRPC's mangled ones (C++ linkage), prefixed as the
// link editor's --wrap expects; they are declared extern "C" so that the
// compiler emits them as written.
#define POOLED_GZIP_COMPRESS_SYMBOL \
  _Z17grpc_msg_compress26grpc_compression_algorithmP17grpc_slice_bufferS1_
#define POOLED_GZIP_DECOMPRESS_SYMBOL \
  _Z19grpc_msg_decompress26grpc_compression_algorithmP17grpc_slice_bufferS1_
#define POOLED_GZIP_PASTE(a, b) a##b
#define POOLED_GZIP_PREFIXED(prefix, name) POOLED_GZIP_PASTE(prefix, name)
#define POOLED_GZIP_WRAP(name) POOLED_GZIP_PREFIXED(__wrap_, name)
#define POOLED_GZIP_REAL(name) POOLED_GZIP_PREFIXED(__real_, name)

extern "C" {
int POOLED_GZIP_REAL(POOLED_GZIP_COMPRESS_SYMBOL)(grpc_compression_algorithm,
                                                  grpc_slice_buffer*,
                                                  grpc_slice_buffer*)
    __attribute__((weak));
int POOLED_GZIP_REAL(POOLED_GZIP_DECOMPRESS_SYMBOL)(grpc_compression_algorithm,
                                                    grpc_slice_buffer*,
                                                    grpc_slice_buffer*)
    __attribute__((weak));

// Where the filters' calls land: pooled once activation admitted gRPC,
// gRPC's own before (seam/activation.h).
int POOLED_GZIP_WRAP(POOLED_GZIP_COMPRESS_SYMBOL)(
    grpc_compression_algorithm algorithm, grpc_slice_buffer* input,
    grpc_slice_buffer* output) {
  return pooled_gzip::internal::RoutedCompress(algorithm, input, output);
}

int POOLED_GZIP_WRAP(POOLED_GZIP_DECOMPRESS_SYMBOL)(
    grpc_compression_algorithm algorithm, grpc_slice_buffer* input,
    grpc_slice_buffer* output) {
  return pooled_gzip::internal::RoutedDecompress(algorithm, input, output);
}
}  // extern "C"

namespace pooled_gzip {
namespace internal {

MessageCodec RealCodec() {
  return {&POOLED_GZIP_REAL(POOLED_GZIP_COMPRESS_SYMBOL),
          &POOLED_GZIP_REAL(POOLED_GZIP_DECOMPRESS_SYMBOL)};
}

bool LinkTimeRoutingInForce() {
  const MessageCodec real = RealCodec();
  return real.complete() &&
         SameLoadedObject(reinterpret_cast<const void*>(real.compress),
                          reinterpret_cast<const void*>(&RealCodec));
}

}  // namespace internal
}  // namespace pooled_gzip
