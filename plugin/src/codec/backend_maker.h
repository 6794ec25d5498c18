// How each backend file makes its writer and reader for the factory
// (BackendMaker, codec/backend.h).

#ifndef POOLED_GZIP_SRC_CODEC_BACKEND_MAKER_H_
#define POOLED_GZIP_SRC_CODEC_BACKEND_MAKER_H_

#include <memory>
#include <new>

#include "codec/backend.h"

namespace pooled_gzip {
namespace internal {

// A backend's writer or reader, allocated without throwing and then made
// ready by its `bool Init()`; null if either fails.
template <typename Base, typename T, typename... Args>
std::unique_ptr<Base> NewReady(Args... args) {
  std::unique_ptr<T> object(new (std::nothrow) T(args...));
  if (object == nullptr || !object->Init()) return nullptr;
  return object;
}

// The maker of a backend whose writer is `D`, constructed from (format,
// level), and whose reader is `I`, constructed from (format, strictness):
// every backend is made the same way.
template <typename D, typename I>
constexpr BackendMaker MakerFor() {
  return {&NewReady<Deflater, D, Format, int>,
          &NewReady<Inflater, I, Format, Strictness>};
}

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_BACKEND_MAKER_H_
