#include "seam/bounded_decompress.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace pooled_gzip {
namespace internal {
namespace {

// grpc_core::MessageDecompress(...) and
// grpc_core::DecompressMessageWithLimit(...), whatever their parameters.
constexpr absl::string_view kPrefixes[] = {
    "_ZN9grpc_core17MessageDecompressE",
    "_ZN9grpc_core26DecompressMessageWithLimitE"};

// How many entries the dynamic symbol table has: DT_HASH says so; with
// only DT_GNU_HASH, one past the last symbol its chains reach.
size_t SymbolCount(const ElfW(Word) * hash, const uint32_t* gnu_hash) {
  if (hash != nullptr) return hash[1];
  if (gnu_hash == nullptr) return 0;
  const uint32_t buckets_count = gnu_hash[0];
  const uint32_t first_hashed = gnu_hash[1];
  const uint32_t bloom_words = gnu_hash[2];
  const auto* buckets = reinterpret_cast<const uint32_t*>(
      reinterpret_cast<const ElfW(Addr)*>(gnu_hash + 4) + bloom_words);
  const uint32_t* chains = buckets + buckets_count;
  uint32_t last = 0;
  for (uint32_t i = 0; i < buckets_count; ++i)
    last = std::max(last, buckets[i]);
  if (last < first_hashed) return first_hashed;
  while ((chains[last - first_hashed] & 1) == 0) ++last;
  return last + 1;
}

}  // namespace

std::optional<std::string> BoundedDecompressExport(const void* grpc_address) {
  Dl_info info;
  if (dladdr(grpc_address, &info) == 0 || info.dli_fname == nullptr) {
    return std::nullopt;
  }
  void* handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return std::nullopt;
  std::optional<std::string> found;
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
      map->l_ld != nullptr) {
    const ElfW(Sym)* symbols = nullptr;
    const char* strings = nullptr;
    const ElfW(Word)* hash = nullptr;
    const uint32_t* gnu_hash = nullptr;
    // The dynamic linker has relocated these d_ptr entries in place.
    for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
      const auto address = reinterpret_cast<const void*>(d->d_un.d_ptr);
      switch (d->d_tag) {
        case DT_SYMTAB:
          symbols = static_cast<const ElfW(Sym)*>(address);
          break;
        case DT_STRTAB:
          strings = static_cast<const char*>(address);
          break;
        case DT_HASH:
          hash = static_cast<const ElfW(Word)*>(address);
          break;
        case DT_GNU_HASH:
          gnu_hash = static_cast<const uint32_t*>(address);
          break;
      }
    }
    const size_t count = symbols != nullptr && strings != nullptr
                             ? SymbolCount(hash, gnu_hash)
                             : 0;
    for (size_t i = 0; i < count && !found; ++i) {
      if (symbols[i].st_shndx == SHN_UNDEF) continue;
      const absl::string_view name = strings + symbols[i].st_name;
      for (absl::string_view prefix : kPrefixes) {
        if (absl::StartsWith(name, prefix)) found = std::string(name);
      }
    }
  }
  dlclose(handle);
  return found;
}

}  // namespace internal
}  // namespace pooled_gzip
