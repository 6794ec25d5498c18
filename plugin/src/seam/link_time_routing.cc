#include "seam/link_time_routing.h"

#include "seam/activation.h"
#include "seam/slot_rewrite.h"
#include "seam/zlib_seam.h"

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
// Visible, so that a program that also loads a shared libgrpc (two gRPC
// cores, which activation refuses and names) still links: GNU ld wraps
// that library's references too, and a hidden definition may not serve
// them. The shared flavour's version script keeps them local there.
#define POOLED_GZIP_WRAPPER __attribute__((visibility("default")))

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
POOLED_GZIP_WRAPPER int POOLED_GZIP_WRAP(POOLED_GZIP_COMPRESS_SYMBOL)(
    grpc_compression_algorithm algorithm, grpc_slice_buffer* input,
    grpc_slice_buffer* output) {
  return pooled_gzip::internal::RoutedCompress(algorithm, input, output);
}

POOLED_GZIP_WRAPPER int POOLED_GZIP_WRAP(POOLED_GZIP_DECOMPRESS_SYMBOL)(
    grpc_compression_algorithm algorithm, grpc_slice_buffer* input,
    grpc_slice_buffer* output) {
  return pooled_gzip::internal::RoutedDecompress(algorithm, input, output);
}

// Where every call of the program to zlib's six entry points lands: gRPC's
// own message codec among them, which --wrap reaches even where it missed
// the two functions above (LTO archives, below); the seam hands every other
// stream to real zlib (seam/zlib_seam.h).
POOLED_GZIP_WRAPPER int __wrap_deflateInit2_(z_streamp stream, int level,
                                             int method, int window_bits,
                                             int mem_level, int strategy,
                                             const char* version,
                                             int stream_size) {
  return pooled_gzip::internal::SeamDeflateInit2(
      stream, level, method, window_bits, mem_level, strategy, version,
      stream_size);
}
POOLED_GZIP_WRAPPER int __wrap_deflate(z_streamp stream, int flush) {
  return pooled_gzip::internal::SeamDeflate(stream, flush);
}
POOLED_GZIP_WRAPPER int __wrap_deflateEnd(z_streamp stream) {
  return pooled_gzip::internal::SeamDeflateEnd(stream);
}
POOLED_GZIP_WRAPPER int __wrap_inflateInit2_(z_streamp stream, int window_bits,
                                             const char* version,
                                             int stream_size) {
  return pooled_gzip::internal::SeamInflateInit2(stream, window_bits, version,
                                                 stream_size);
}
POOLED_GZIP_WRAPPER int __wrap_inflate(z_streamp stream, int flush) {
  return pooled_gzip::internal::SeamInflate(stream, flush);
}
POOLED_GZIP_WRAPPER int __wrap_inflateEnd(z_streamp stream) {
  return pooled_gzip::internal::SeamInflateEnd(stream);
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
