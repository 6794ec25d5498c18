// zlib's six entry points that carry gRPC's message codec, as this
// library reaches the real ones. The static flavour's link routes every
// call to them in the program through the zlib seam (--wrap, see
// seam/link_time_routing.h); there the name `deflate` means the seam, and
// only `__real_deflate` still means zlib. Everywhere else the names are
// zlib's own.

#ifndef POOLED_GZIP_SRC_SEAM_REAL_ZLIB_H_
#define POOLED_GZIP_SRC_SEAM_REAL_ZLIB_H_

#include <zlib.h>

namespace pooled_gzip {
namespace internal {

struct ZlibFunctions {
  int (*deflate_init)(z_streamp, int, int, int, int, int, const char*, int);
  int (*deflate)(z_streamp, int);
  int (*deflate_end)(z_streamp);
  int (*inflate_init)(z_streamp, int, const char*, int);
  int (*inflate)(z_streamp, int);
  int (*inflate_end)(z_streamp);
};

const ZlibFunctions& RealZlib();

// Whether this program was linked with the static flavour's --wrap for
// zlib's six entry points: every call to them reaches the seam first.
bool ZlibRoutedAtLinkTime();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_REAL_ZLIB_H_
