#include "seam/slot_rewrite.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "pool/held_across_fork.h"

namespace pooled_gzip {
namespace internal {
namespace {

// One aligned store, so a concurrent call through the slot jumps to the
// old or the new target; around it, a RELRO page is writable for a moment.
bool StoreSlot(bool read_only, void** slot, void* target) {
  const auto page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  void* page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) &
                                       ~(page_size - 1));
  if (read_only && mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) {
    return false;
  }
  __atomic_store_n(slot, target, __ATOMIC_RELEASE);
  if (read_only) mprotect(page, page_size, PROT_READ);
  return true;
}

std::string BaseName(const char* path) {
  const char* slash = std::strrchr(path, '/');
  if (slash != nullptr) return slash + 1;
  return *path != '\0' ? path : "<main>";
}

// One slot of one object, as found inside the callback.
struct FoundSlot {
  std::string object;  // base name
  const char* name;    // the target's name
  void* value;         // what the slot held when found
  void** address;
  void* served;
  bool rebindable;  // a JUMP_SLOT outside RELRO
  enum { kToUs, kLazy, kStock, kTaken } was;
  enum { kLeft, kPointed, kFailed } outcome = kLeft;
};

// An object that imports a target, pinned before its slots are written.
struct Importer {
  std::string name;  // dlpi_name: "" for the main program
  ElfW(Addr) base;
  bool pinned = false;
};

struct Scan {
  const std::vector<SlotTarget>* targets;
  const void* own_address;
  const void* within;  // null: every object
  Range own;
  // kInspect: find slots; kFindImporters: list the objects to pin;
  // kPoint: find and write the slots of pinned importers.
  enum { kInspect, kFindImporters, kPoint } step;
  std::vector<Importer> importers;
  std::vector<FoundSlot> slots;
  bool incomplete = false;  // memory ran out inside a callback
};

// Every callback below reads memory, and at most stores a slot: it holds
// the loader's write lock (see the header).
int FindOwnRange(dl_phdr_info* info, size_t, void* data) noexcept {
  auto* scan = static_cast<Scan*>(data);
  if (!SegmentsContain(*info, scan->own_address)) return 0;
  scan->own = LoadedRange(*info);
  return 1;
}

const Importer* PinnedImporter(const Scan& scan, const dl_phdr_info& info) {
  for (const Importer& importer : scan.importers) {
    if (importer.pinned && importer.base == info.dlpi_addr &&
        importer.name == info.dlpi_name) {
      return &importer;
    }
  }
  return nullptr;
}

void ScanOneObject(dl_phdr_info* info, Scan* scan);

// No exception may leave a callback: dl_iterate_phdr would keep the
// loader's write lock, and every later dlopen in the process would hang.
int ScanObject(dl_phdr_info* info, size_t, void* data) noexcept {
  auto* scan = static_cast<Scan*>(data);
  try {
    ScanOneObject(info, scan);
  } catch (...) {
    scan->incomplete = true;
    return 1;
  }
  return 0;
}

void ScanOneObject(dl_phdr_info* info, Scan* scan) {
  if (!kTypesKnown || SegmentsContain(*info, scan->own_address)) return;
  if (scan->within != nullptr && !SegmentsContain(*info, scan->within)) return;
  if (scan->step == Scan::kPoint && PinnedImporter(*scan, *info) == nullptr) {
    return;
  }
  const DynamicTables tables = ReadDynamic(*info);
  if (tables.symbols == nullptr || tables.strings == nullptr) return;
  for (int t = 0; t < 2; ++t) {
    if (tables.tables[t] == nullptr) continue;
    const size_t count = tables.sizes[t] / sizeof(ElfW(Rela));
    for (size_t i = 0; i < count; ++i) {
      const ElfW(Rela)& relocation = tables.tables[t][i];
      const unsigned type = ELF64_R_TYPE(relocation.r_info);
      if (type != kJumpSlot && type != kGlobDat) continue;
      const ElfW(Sym)& symbol = tables.symbols[ELF64_R_SYM(relocation.r_info)];
      const char* name = tables.strings + symbol.st_name;
      const SlotTarget* matched = nullptr;
      for (const SlotTarget& target : *scan->targets) {
        if (std::strcmp(name, target.name) == 0) matched = &target;
      }
      if (matched == nullptr) continue;
      if (scan->step == Scan::kFindImporters) {
        scan->importers.push_back({info->dlpi_name, info->dlpi_addr});
        return;
      }
      void** slot =
          reinterpret_cast<void**>(info->dlpi_addr + relocation.r_offset);
      const bool read_only = RelroPages(*info).Contains(slot);
      FoundSlot found{BaseName(info->dlpi_name),
                      matched->name,
                      __atomic_load_n(slot, __ATOMIC_ACQUIRE),
                      slot,
                      matched->served,
                      type == kJumpSlot && !read_only,
                      FoundSlot::kTaken};
      // A lazy slot still points into its own object's PLT.
      const bool defined_here =
          symbol.st_shndx != SHN_UNDEF &&
          found.value ==
              reinterpret_cast<void*>(info->dlpi_addr + symbol.st_value);
      // Another function of this object (the shared flavour's exported
      // definitions, or the program's own where this library is linked
      // into it) is taken like the stock definition.
      if (found.value == matched->served) {
        found.was = FoundSlot::kToUs;
      } else if (type == kJumpSlot && SegmentsContain(*info, found.value) &&
                 !defined_here) {
        found.was = FoundSlot::kLazy;
      } else if (found.value == matched->stock ||
                 scan->own.Contains(found.value)) {
        found.was = FoundSlot::kStock;
      }
      if (scan->step == Scan::kPoint &&
          (found.was == FoundSlot::kLazy || found.was == FoundSlot::kStock)) {
        found.outcome = StoreSlot(read_only, slot, matched->served)
                            ? FoundSlot::kPointed
                            : FoundSlot::kFailed;
      }
      scan->slots.push_back(std::move(found));
    }
  }
}

struct ListedQuery {
  const Importer* importer;
  bool listed = false;
};

int QueryListed(dl_phdr_info* info, size_t, void* data) noexcept {
  auto* query = static_cast<ListedQuery*>(data);
  query->listed = query->listed || (info->dlpi_addr == query->importer->base &&
                                    query->importer->name == info->dlpi_name);
  return 0;
}

// Outside any callback: dladdr may take the loader's lock.
std::string ObjectOf(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "?";
  return BaseName(info.dli_fname);
}

// Takes a reference to a loaded object, waiting for a dlopen in progress;
// null if it is not (or no longer) the object found at `base`.
void* Pin(const Importer& importer) {
  void* handle = dlopen(importer.name.empty() ? nullptr : importer.name.c_str(),
                        RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr ||
      map->l_addr != importer.base) {
    dlclose(handle);
    return nullptr;
  }
  return handle;
}

SlotReport Report(const Scan& scan) {
  SlotReport report;
  for (const FoundSlot& slot : scan.slots) {
    ++report.total;
    std::string target;
    if (slot.outcome == FoundSlot::kPointed && slot.rebindable) {
      report.rebindable.push_back({slot.name, slot.address, slot.served});
    }
    if (slot.was == FoundSlot::kToUs || slot.outcome == FoundSlot::kPointed) {
      ++report.to_us;
      target = slot.outcome == FoundSlot::kPointed ? "pooled_gzip (pointed)"
                                                   : "pooled_gzip";
    } else if (slot.outcome == FoundSlot::kFailed) {
      ++report.failed;
      target = "not writable";
    } else if (slot.was == FoundSlot::kLazy) {
      target = "unbound";
    } else if (slot.was == FoundSlot::kStock) {
      target = ObjectOf(slot.value);
    } else {
      ++report.taken;
      target = absl::StrCat(ObjectOf(slot.value), " (served there)");
    }
    absl::StrAppend(&report.detail, report.detail.empty() ? "" : ", ",
                    slot.object, ":", slot.name, "->", target);
  }
  // An importer still loaded that could not be pinned (one dlmopen()ed into
  // another namespace, which RTLD_NOLOAD does not search) keeps its slots.
  for (const Importer& importer : scan.importers) {
    if (importer.pinned) continue;
    ListedQuery query{&importer};
    dl_iterate_phdr(QueryListed, &query);
    if (!query.listed) continue;  // unloaded meanwhile: nothing to point
    ++report.total;
    ++report.failed;
    absl::StrAppend(&report.detail, report.detail.empty() ? "" : ", ",
                    BaseName(importer.name.c_str()), ": not pinned");
  }
  if (scan.incomplete) {
    ++report.total;
    ++report.failed;
    absl::StrAppend(&report.detail, report.detail.empty() ? "" : ", ",
                    "scan incomplete: out of memory");
  }
  return report;
}

// Slots are stored one scan at a time: two scans storing into the same
// RELRO page would each make it read-only again under the other's store.
// Held only around the storing scan, never while pinning (which may wait
// for a dlopen whose constructors set up a channel and so scan too).
std::mutex& StoreMutex() { return MutexHeldAcrossFork<&StoreMutex>(); }

}  // namespace

void SlotReport::Add(const SlotReport& other) {
  total += other.total;
  to_us += other.to_us;
  taken += other.taken;
  failed += other.failed;
  rebindable.insert(rebindable.end(), other.rebindable.begin(),
                    other.rebindable.end());
  if (!other.detail.empty()) {
    absl::StrAppend(&detail, detail.empty() ? "" : ", ", other.detail);
  }
}

SlotReport InspectSlots(const std::vector<SlotTarget>& targets,
                        const void* own_address, const void* within) {
  Scan scan{&targets, own_address, within, {}, Scan::kInspect, {}, {}};
  dl_iterate_phdr(FindOwnRange, &scan);
  dl_iterate_phdr(ScanObject, &scan);
  return Report(scan);
}

SlotReport PointSlots(const std::vector<SlotTarget>& targets,
                      const void* own_address, const void* within) {
  Scan scan{&targets, own_address, within, {}, Scan::kFindImporters, {}, {}};
  dl_iterate_phdr(FindOwnRange, &scan);
  dl_iterate_phdr(ScanObject, &scan);
  std::vector<void*> pins;
  for (Importer& importer : scan.importers) {
    if (void* handle = Pin(importer)) {
      importer.pinned = true;
      pins.push_back(handle);
    }
  }
  scan.step = Scan::kPoint;
  {
    std::lock_guard<std::mutex> lock(StoreMutex());
    dl_iterate_phdr(ScanObject, &scan);
  }
  for (void* handle : pins) dlclose(handle);
  return Report(scan);
}

}  // namespace internal
}  // namespace pooled_gzip
