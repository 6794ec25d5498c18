// zlib's entry points that carry gRPC's message codec
// (seam/zlib_entries.def), as this library reaches the real ones. The
// static flavour's link routes every call to them in the program through
// the zlib seam (--wrap, see seam/link_time_routing.h); there zlib's own
// name means the seam, and only __real_<name> still means zlib. Everywhere
// else the names are zlib's own.

#ifndef POOLED_GZIP_SRC_SEAM_REAL_ZLIB_H_
#define POOLED_GZIP_SRC_SEAM_REAL_ZLIB_H_

#include <zlib.h>

namespace pooled_gzip {
namespace internal {

// One pointer per entry point, of zlib's type.
struct ZlibFunctions {
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  decltype(&::name) field = nullptr;
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY
};

const ZlibFunctions& RealZlib();

// Whether this program was linked with the static flavour's --wrap for
// every entry point: every call to them reaches the seam first.
bool ZlibRoutedAtLinkTime();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_REAL_ZLIB_H_
