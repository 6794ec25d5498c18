// The slot rewrite: how a shared libgrpc's zlib calls reach pooled-gzip.
// Every loaded object calls an imported function through a relocation slot
// (JUMP_SLOT or GLOB_DAT) that the dynamic linker filled; reading those
// slots is the only way to learn where the calls go (dlsym(RTLD_DEFAULT)
// answers for the caller's lookup scope, not for libgrpc's), and writing
// one is one aligned pointer store, so a thread calling through it at that
// moment lands in either definition, never elsewhere. A slot inside an
// object's RELRO segment is made writable around the store. Only x86-64's
// and AArch64's relocation types are known.
//
// The rules it keeps with the dynamic loader (glibc), which holds
// dl_load_write_lock while a dl_iterate_phdr callback runs and lists an
// object before dlopen has relocated it:
// - Inside a dl_iterate_phdr callback: memory reads, mprotect and the
//   store; never dlopen, dlclose, dladdr, nor a first call through a PLT
//   (lazy binding), each of which may wait for dl_load_lock, which a
//   thread inside dlopen holds while it waits for the write lock.
// - Only fully loaded objects are written: each importer is first pinned
//   with dlopen(name, RTLD_NOLOAD), which waits for a dlopen in progress
//   and fails for an object not loaded (or being unloaded).
// - A lazy slot is written like a bound one, never bound by a call.
// - No lock of ours is held while the loader may wait: the one that
//   serialises stores is held only around the storing scan (a constructor
//   running inside dlopen may set up a channel, and so scan, while another
//   thread's pin waits for that dlopen).
//
// The loader can still undo a store: a thread inside the dynamic linker's
// binding of a lazy JUMP_SLOT (its first call through the PLT) when the
// store lands writes the address it looked up after ours, and nothing
// tells how long it stays there. PointSlots reports every JUMP_SLOT it
// pointed outside RELRO, where such a binding can write, so that its
// caller can point any of them back (seam/activation.h).

#ifndef POOLED_GZIP_SRC_SEAM_SLOT_REWRITE_H_
#define POOLED_GZIP_SRC_SEAM_SLOT_REWRITE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "seam/loaded_objects.h"

namespace pooled_gzip {
namespace internal {

// One imported function, where its slots should point, and the
// definition they lead to when nothing serves it. A slot that leads to
// neither (nor is still lazy) is served by someone else, such as another
// copy of this library, and is left to them: a process has one owner.
struct SlotTarget {
  const char* name;
  void* served;
  const void* stock;
};

// A JUMP_SLOT pointed outside RELRO: a lazy binding in flight may still
// write the stock address into it.
struct RebindableSlot {
  const char* name;
  void** slot;
  void* served;
};

struct SlotReport {
  int total = 0;   // slots found for the targets, outside this object
  int to_us = 0;   // pointing at the served function (after any writes)
  int taken = 0;   // served by another object than this or the stock
  int failed = 0;  // could not be written (mprotect refused, unpinned)
  // "libgrpc.so.29:deflate->pooled_gzip (pointed), ..."
  std::string detail;
  std::vector<RebindableSlot> rebindable;  // of the slots pointed

  bool AllToUs() const { return total > 0 && to_us == total; }
  // Counts `other`'s slots too, and appends its detail.
  void Add(const SlotReport& other);
};

// Reads the JUMP_SLOT and GLOB_DAT relocations naming a target in every
// loaded object other than the one containing `own_address` (only in the
// object containing `within`, if given). Writes nothing; names what the
// slots lead to with dladdr, so never call it inside a dl_iterate_phdr
// callback.
SlotReport InspectSlots(const std::vector<SlotTarget>& targets,
                        const void* own_address, const void* within = nullptr);

// Points every such slot that still leads to the stock definition or into
// the object containing `own_address`, or is lazy, at its target's
// served function, keeping the rules above; slots taken by another object are
// left and counted. The caller must have made sure
// the object containing `own_address` is never unloaded.
SlotReport PointSlots(const std::vector<SlotTarget>& targets,
                      const void* own_address, const void* within = nullptr);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_SLOT_REWRITE_H_
