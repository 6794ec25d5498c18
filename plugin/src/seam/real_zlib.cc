#include "seam/real_zlib.h"

// Where the link editor's --wrap=NAME is in force, __real_NAME is zlib's
// NAME; otherwise nothing defines it, and the weak reference is null.
extern "C" {
int __real_deflateInit2_(z_streamp, int, int, int, int, int, const char*, int)
    __attribute__((weak));
int __real_deflate(z_streamp, int) __attribute__((weak));
int __real_deflateEnd(z_streamp) __attribute__((weak));
int __real_inflateInit2_(z_streamp, int, const char*, int)
    __attribute__((weak));
int __real_inflate(z_streamp, int) __attribute__((weak));
int __real_inflateEnd(z_streamp) __attribute__((weak));
}  // extern "C"

namespace pooled_gzip {
namespace internal {

bool ZlibRoutedAtLinkTime() {
  return __real_deflateInit2_ != nullptr && __real_deflate != nullptr &&
         __real_deflateEnd != nullptr && __real_inflateInit2_ != nullptr &&
         __real_inflate != nullptr && __real_inflateEnd != nullptr;
}

const ZlibFunctions& RealZlib() {
  // With --wrap in force, the plain names below would be the seam itself.
  static const ZlibFunctions functions =
      ZlibRoutedAtLinkTime()
          ? ZlibFunctions{&__real_deflateInit2_, &__real_deflate,
                          &__real_deflateEnd,    &__real_inflateInit2_,
                          &__real_inflate,       &__real_inflateEnd}
          : ZlibFunctions{&deflateInit2_, &deflate, &deflateEnd,
                          &inflateInit2_, &inflate, &inflateEnd};
  return functions;
}

}  // namespace internal
}  // namespace pooled_gzip
