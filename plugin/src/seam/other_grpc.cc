#include "seam/other_grpc.h"

#include <dlfcn.h>
#include <link.h>

#include <string>
#include <vector>

#include "seam/slot_rewrite.h"

namespace pooled_gzip {
namespace internal {
namespace {

// No exception may leave the callback, and it only copies names: dlopen
// inside it would take the loader's locks in the wrong order.
int CollectName(dl_phdr_info* info, size_t /*size*/, void* data) noexcept {
  auto* names = static_cast<std::vector<std::string>*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] != '/') return 0;
  try {
    names->emplace_back(info->dlpi_name);
  } catch (...) {
    return 1;  // out of memory: the objects listed so far are looked at
  }
  return 0;
}

}  // namespace

std::optional<std::string> OtherGrpcBeside(const void* linked_in) {
  std::vector<std::string> names;
  names.reserve(64);
  dl_iterate_phdr(CollectName, &names);
  for (const std::string& name : names) {
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;  // unloaded meanwhile
    // Found in the object or the libraries it needs, never in the program.
    void* grpc_init = dlsym(handle, "grpc_init");
    dlclose(handle);  // NOLOAD took a reference; the object stays loaded
    if (grpc_init == nullptr || SameLoadedObject(grpc_init, linked_in)) {
      continue;
    }
    Dl_info info;
    if (dladdr(grpc_init, &info) != 0 && info.dli_fname != nullptr) {
      return std::string(info.dli_fname);
    }
    return name;
  }
  return std::nullopt;
}

}  // namespace internal
}  // namespace pooled_gzip
