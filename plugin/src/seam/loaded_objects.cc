#include "seam/loaded_objects.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>

namespace pooled_gzip {
namespace internal {
namespace {

struct MainProgramQuery {
  const void* address;
  bool contains = false;
};

struct ObjectQuery {
  const void* a;
  const void* b;
  bool same = false;
};

int QuerySameObject(dl_phdr_info* info, size_t, void* data) noexcept {
  auto* query = static_cast<ObjectQuery*>(data);
  if (!SegmentsContain(*info, query->a)) return 0;
  query->same = SegmentsContain(*info, query->b);
  return 1;
}

// The main program is listed first.
int QueryMainProgram(dl_phdr_info* info, size_t, void* data) noexcept {
  auto* query = static_cast<MainProgramQuery*>(data);
  query->contains = SegmentsContain(*info, query->address);
  return 1;
}

int ReadGeneration(dl_phdr_info* info, size_t size, void* data) noexcept {
  if (size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds)) {
    *static_cast<uint64_t*>(data) = info->dlpi_adds;
  }
  return 1;  // the counters are the same in every entry
}

}  // namespace

bool SegmentsContain(const dl_phdr_info& info, const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info.dlpi_phdr[i];
    if (header.p_type != PT_LOAD) continue;
    const uintptr_t begin = info.dlpi_addr + header.p_vaddr;
    if (a >= begin && a < begin + header.p_memsz) return true;
  }
  return false;
}

Range LoadedRange(const dl_phdr_info& info) {
  Range range{UINTPTR_MAX, 0};
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info.dlpi_phdr[i];
    if (header.p_type != PT_LOAD) continue;
    const uintptr_t begin = info.dlpi_addr + header.p_vaddr;
    range.begin = std::min(range.begin, begin);
    range.end = std::max<uintptr_t>(range.end, begin + header.p_memsz);
  }
  return range;
}

Range RelroPages(const dl_phdr_info& info) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info.dlpi_phdr[i];
    if (header.p_type != PT_GNU_RELRO) continue;
    const uintptr_t begin = info.dlpi_addr + header.p_vaddr;
    return Range{begin & ~(page - 1), (begin + header.p_memsz) & ~(page - 1)};
  }
  return Range{};
}

DynamicTables ReadDynamic(const dl_phdr_info& info) {
  DynamicTables tables;
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    if (info.dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info.dlpi_addr +
                                                   info.dlpi_phdr[i].p_vaddr);
    }
  }
  if (dynamic == nullptr) return tables;
  // The dynamic linker relocates most d_ptr entries in place; some objects
  // (the vDSO) keep them relative.
  auto address = [&](ElfW(Addr) p) {
    return p < info.dlpi_addr ? p + info.dlpi_addr : p;
  };
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        tables.symbols =
            reinterpret_cast<const ElfW(Sym)*>(address(d->d_un.d_ptr));
        break;
      case DT_STRTAB:
        tables.strings = reinterpret_cast<const char*>(address(d->d_un.d_ptr));
        break;
      case DT_JMPREL:
        tables.tables[0] =
            reinterpret_cast<const ElfW(Rela)*>(address(d->d_un.d_ptr));
        break;
      case DT_PLTRELSZ:
        tables.sizes[0] = d->d_un.d_val;
        break;
      case DT_RELA:
        tables.tables[1] =
            reinterpret_cast<const ElfW(Rela)*>(address(d->d_un.d_ptr));
        break;
      case DT_RELASZ:
        tables.sizes[1] = d->d_un.d_val;
        break;
    }
  }
  return tables;
}

bool SameLoadedObject(const void* a, const void* b) {
  ObjectQuery query{a, b};
  dl_iterate_phdr(QuerySameObject, &query);
  return query.same;
}

bool InMainProgram(const void* address) {
  MainProgramQuery query{address};
  dl_iterate_phdr(QueryMainProgram, &query);
  return query.contains;
}

bool PinObjectContaining(const void* address) {
  if (InMainProgram(address)) return true;
  Dl_info info;
  return dladdr(address, &info) != 0 && info.dli_fname != nullptr &&
         dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) !=
             nullptr;
}

uint64_t LoadedObjectsGeneration() {
  uint64_t generation = 0;
  dl_iterate_phdr(ReadGeneration, &generation);
  return generation;
}

}  // namespace internal
}  // namespace pooled_gzip
