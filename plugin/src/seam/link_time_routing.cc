#include "seam/link_time_routing.h"

#include "seam/zlib_seam.h"

int __wrap_deflateInit2_(z_streamp stream, int level, int method,
                         int window_bits, int mem_level, int strategy,
                         const char* version, int stream_size) {
  return pooled_gzip::internal::SeamDeflateInit2(
      stream, level, method, window_bits, mem_level, strategy, version,
      stream_size);
}
int __wrap_deflate(z_streamp stream, int flush) {
  return pooled_gzip::internal::SeamDeflate(stream, flush);
}
int __wrap_deflateEnd(z_streamp stream) {
  return pooled_gzip::internal::SeamDeflateEnd(stream);
}
int __wrap_inflateInit2_(z_streamp stream, int window_bits, const char* version,
                         int stream_size) {
  return pooled_gzip::internal::SeamInflateInit2(stream, window_bits, version,
                                                 stream_size);
}
int __wrap_inflate(z_streamp stream, int flush) {
  return pooled_gzip::internal::SeamInflate(stream, flush);
}
int __wrap_inflateEnd(z_streamp stream) {
  return pooled_gzip::internal::SeamInflateEnd(stream);
}
