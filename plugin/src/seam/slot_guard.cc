#include "seam/slot_guard.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "glue/codec_log.h"
#include "glue/grpc_log.h"
#include "pool/held_across_fork.h"

namespace pooled_gzip {
namespace internal {
namespace {

// libgrpc has four JUMP_SLOTs of zlib's; room for a few more objects.
constexpr size_t kMaxGuarded = 32;

// Written under the mutex before `guarded_count` publishes them; read
// without it.
RebindableSlot guarded[kMaxGuarded];
std::atomic<size_t> guarded_count{0};
std::mutex& GuardMutex() { return MutexHeldAcrossFork<&GuardMutex>(); }

}  // namespace

void GuardSlots(const std::vector<RebindableSlot>& slots) {
  const std::lock_guard<std::mutex> lock(GuardMutex());
  size_t count = guarded_count.load(std::memory_order_relaxed);
  for (const RebindableSlot& slot : slots) {
    bool known = false;
    for (size_t i = 0; i < count; ++i)
      known = known || guarded[i].slot == slot.slot;
    if (known || count == kMaxGuarded) continue;
    guarded[count++] = slot;
    guarded_count.store(count, std::memory_order_release);
  }
}

bool KeepSlotsPointed() {
  const size_t count = guarded_count.load(std::memory_order_acquire);
  bool moved = false;
  for (size_t i = 0; i < count; ++i) {
    const RebindableSlot& slot = guarded[i];
    if (__atomic_load_n(slot.slot, __ATOMIC_ACQUIRE) == slot.served) {
      continue;
    }
    __atomic_store_n(slot.slot, slot.served, __ATOMIC_RELEASE);
    moved = true;
    static std::atomic<int64_t> next_line_ns{0};
    if (OnceAMinute(next_line_ns)) {
      POOLED_GZIP_LOG(
          kWarning,
          absl::StrCat("pooled_gzip: the dynamic linker bound libgrpc's ",
                       slot.name,
                       " after the core codec pointed it (a thread was "
                       "binding it then); pointed at pooled_gzip again"));
    }
  }
  return moved;
}

}  // namespace internal
}  // namespace pooled_gzip
