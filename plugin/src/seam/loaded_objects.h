// What the process has loaded, as dl_iterate_phdr lists it. The functions
// that take a dl_phdr_info only read memory, so they may run inside a
// dl_iterate_phdr callback (seam/slot_rewrite.h); the others may not.

#ifndef POOLED_GZIP_SRC_SEAM_LOADED_OBJECTS_H_
#define POOLED_GZIP_SRC_SEAM_LOADED_OBJECTS_H_

#include <elf.h>
#include <link.h>

#include <cstddef>
#include <cstdint>

namespace pooled_gzip {
namespace internal {

// The two kinds of relocation slot through which an object calls an
// imported function: JUMP_SLOT (its PLT) and GLOB_DAT (an address taken).
#if defined(__x86_64__)
inline constexpr bool kTypesKnown = true;
inline constexpr unsigned kJumpSlot = R_X86_64_JUMP_SLOT;
inline constexpr unsigned kGlobDat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
// The same two kinds of slot under other numbers. A PLT entry loads its
// slot and branches (no instruction cache to flush), a lazy slot points
// into the object as on x86-64, an aligned 8-byte store is single-copy
// atomic, and the page size (4, 16 or 64 KiB) is read with sysconf.
inline constexpr bool kTypesKnown = true;
inline constexpr unsigned kJumpSlot = R_AARCH64_JUMP_SLOT;
inline constexpr unsigned kGlobDat = R_AARCH64_GLOB_DAT;
#else
inline constexpr bool kTypesKnown = false;
inline constexpr unsigned kJumpSlot = ~0u;
inline constexpr unsigned kGlobDat = ~0u;
#endif

struct Range {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  bool Contains(const void* p) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    return a >= begin && a < end;
  }
};

// Whether one of the object's loaded segments holds `p`.
bool SegmentsContain(const dl_phdr_info& info, const void* p);

// From the object's lowest loaded address to its highest.
Range LoadedRange(const dl_phdr_info& info);

// The pages the dynamic linker made read-only after relocating the object
// (it rounds the segment's end down to a page).
Range RelroPages(const dl_phdr_info& info);

// The dynamic section's tables of one object.
struct DynamicTables {
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
  const ElfW(Rela) * tables[2] = {nullptr, nullptr};  // PLT, then data
  size_t sizes[2] = {0, 0};
};
DynamicTables ReadDynamic(const dl_phdr_info& info);

// Whether `a` and `b` lie in the same loaded object; reads the program
// headers only, so it also answers in a fully static program, where dladdr
// finds nothing.
bool SameLoadedObject(const void* a, const void* b);

// Whether `address` lies in the main program (not a shared object).
bool InMainProgram(const void* address);

// Makes the loaded object that holds `address` permanent (RTLD_NODELETE):
// whatever of it gRPC or the loader keeps, a plugin that links this library
// can no longer unload. True for the main program, which stays anyway;
// false if the object could not be found.
bool PinObjectContaining(const void* address);

// Changes whenever an object is added to the process (counted by the
// loader as soon as it is listed, before it is relocated).
uint64_t LoadedObjectsGeneration();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_LOADED_OBJECTS_H_
