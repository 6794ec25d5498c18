#include "seam/real_zlib.h"

// Where the link editor's --wrap=NAME is in force, __real_NAME is zlib's
// NAME; otherwise nothing defines it, and the weak reference is null.
extern "C" {
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  decltype(::name) __real_##name __attribute__((weak));
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY
}  // extern "C"

namespace pooled_gzip {
namespace internal {

bool ZlibRoutedAtLinkTime() {
  bool routed = true;
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  routed = routed && __real_##name != nullptr;
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY
  return routed;
}

const ZlibFunctions& RealZlib() {
  // With --wrap in force, the plain names would be the seam itself.
  static const ZlibFunctions functions = [] {
    const bool routed = ZlibRoutedAtLinkTime();
    ZlibFunctions zlib;
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  zlib.field = routed ? &__real_##name : &::name;
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY
    return zlib;
  }();
  return functions;
}

}  // namespace internal
}  // namespace pooled_gzip
