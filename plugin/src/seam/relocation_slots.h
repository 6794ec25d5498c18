// Where the dynamic linker bound other objects' calls to a function, read
// from (and, to install the core codec, written to) the relocation slots of
// every loaded object: the only place that tells the truth.
// dlsym(RTLD_DEFAULT) does not (it answers for the caller's lookup scope,
// not for libgrpc's).
//
// Pointing a slot is one aligned pointer store, so a thread calling through
// it at that moment lands in either definition, never elsewhere; a slot in
// an object's RELRO segment is made writable around the store. Only
// x86-64's relocation types are known (R_X86_64_JUMP_SLOT, GLOB_DAT); on
// other architectures every scan reports RelocationTypesKnown() false.

#ifndef POOLED_GZIP_SRC_SEAM_RELOCATION_SLOTS_H_
#define POOLED_GZIP_SRC_SEAM_RELOCATION_SLOTS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pooled_gzip {
namespace internal {

// One imported function and where its slots should point.
struct SlotTarget {
  const char* mangled_name;
  void* replacement;
};

struct SlotReport {
  int total = 0;       // slots found for the targets, outside this library
  int to_us = 0;       // pointing into this library
  int redirected = 0;  // of those, pointed there by this scan
  int elsewhere = 0;   // pointing at another definition (libgrpc's own)
  int lazy = 0;        // not bound yet (lazy binding, never called)
  int failed = 0;      // could not be written (mprotect refused)
  // "libgrpc.so.29:grpc_msg_compress->pooled_gzip, ..."
  std::string detail;

  bool AllToUs() const { return total > 0 && to_us == total; }
};

// Calls through a lazy slot once (with harmless arguments) so that the
// dynamic linker binds it before it is read or pointed elsewhere.
using LazySlotResolver = void (*)(void* plt_target);

enum class SlotScan {
  kInspect,   // read only
  kRedirect,  // point every slot not yet into this library at its target
};

// Scans the JUMP_SLOT and GLOB_DAT relocations naming a target in every
// loaded object other than the one containing `own_address`.
SlotReport ScanRelocationSlots(const std::vector<SlotTarget>& targets,
                               const void* own_address,
                               LazySlotResolver resolve, SlotScan scan);

// Whether this build knows the architecture's relocation types.
bool RelocationTypesKnown();

// Changes whenever an object is loaded into the process.
uint64_t LoadedObjectsGeneration();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_RELOCATION_SLOTS_H_
