// Whether the dynamic linker bound gRPC's calls to a function to this
// library's definition: read from the relocation slots of every loaded
// object, the only place that tells the truth. dlsym(RTLD_DEFAULT) does not
// (it answers for the caller's lookup scope, not for libgrpc's).

#ifndef POOLED_GZIP_SRC_GRPC_RELOCATION_CHECK_H_
#define POOLED_GZIP_SRC_GRPC_RELOCATION_CHECK_H_

#include <string>
#include <vector>

namespace pooled_gzip {
namespace internal {

struct SlotReport {
  int total = 0;      // slots found for the symbols, outside this library
  int to_us = 0;      // bound to this library's definition
  int elsewhere = 0;  // bound to another definition (libgrpc's own)
  int lazy = 0;       // not bound yet (lazy binding, never called)
  // "libgrpc.so.29:grpc_msg_compress->pooled_gzip, ..."
  std::string detail;

  bool AllToUs() const { return total > 0 && to_us == total; }
};

// Calls `resolve(slot_value)` once for every lazy slot so that the dynamic
// linker binds it (with harmless arguments), then reads the slot again.
using LazySlotResolver = void (*)(void* plt_target);

// Inspects JUMP_SLOT and GLOB_DAT relocations that name any of
// `mangled_names` in every loaded object other than the one containing
// `own_address`.
SlotReport CheckRelocationSlots(const std::vector<const char*>& mangled_names,
                                const void* own_address,
                                LazySlotResolver resolve);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_GRPC_RELOCATION_CHECK_H_
