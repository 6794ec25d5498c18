// Each thread's free lists, and the registries through which other threads
// free or revoke them (pool/context_pool.h has the protocol).

#ifndef POOLED_GZIP_SRC_POOL_THREAD_CACHE_H_
#define POOLED_GZIP_SRC_POOL_THREAD_CACHE_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "pool/pool_books.h"
#include "pool/reserve.h"
#include "pool/revocable_claim.h"

namespace pooled_gzip {
namespace internal {

template <typename Policy>
class SlotRegistry;

// One thread's idle contexts of one key in one pool; only it touches them.
template <typename Policy>
struct ThreadSlot {
  using Context = typename Policy::Context;
  using Key = typename Policy::Key;

  ThreadSlot(std::shared_ptr<SlotRegistry<Policy>> owner, const Key& slot_key)
      : registry(std::move(owner)), key(slot_key) {}

  // Keeps the pool's books alive while the thread holds the slot.
  const std::shared_ptr<SlotRegistry<Policy>> registry;
  const Key key;
  // Oldest first. Changed by the thread holding `claim`, or by a revoker
  // that took it.
  std::vector<Context*> idle;
  // Once revoked, every context in `idle` is the thread's to free.
  RevocableClaim claim;
  // Checkouts of this generation or earlier are stale.
  std::atomic<uint64_t> stale_in{0};
};

// Every living thread's slots of one pool, and the pool's generation.
template <typename Policy>
class SlotRegistry {
 public:
  using Context = typename Policy::Context;
  using Key = typename Policy::Key;
  using Slot = ThreadSlot<Policy>;

  SlotRegistry(PoolBooks<Policy>& books, Reserve<Policy>& reserve)
      : books_(books), reserve_(reserve) {}

  SlotRegistry(const SlotRegistry&) = delete;
  SlotRegistry& operator=(const SlotRegistry&) = delete;

  uint64_t generation() const {
    return generation_.load(std::memory_order_acquire);
  }

  // For the pool's fork handlers.
  std::mutex& mutex() { return mutex_; }

  // May be seen late, but not after a failed let-go or a Restore: both
  // read the Take that followed the store.
  static bool Stale(const Slot& slot, uint64_t generation) {
    return slot.stale_in.load(std::memory_order_relaxed) >= generation;
  }

  // The same for a key the thread had no slot of when EvictIdleIf ran.
  // Older than the predicates kept counts as retired: at worst a context
  // is made again.
  bool Retired(const Key& key, uint64_t checked_out) {
    if (checked_out >= generation_.load(std::memory_order_acquire)) {
      return false;  // no EvictIdleIf since
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (newest_dropped_ >= checked_out) return true;
    for (const Retirement& retirement : retirements_) {
      if (retirement.stale >= checked_out && retirement.pred(key)) {
        return true;
      }
    }
    return false;
  }

  // The newest idle context of this thread's `slot`, out of the books, or
  // null.
  Context* Pop(Slot& slot) {
    if (slot.claim.contexts() == 0) return nullptr;
    switch (slot.claim.TryHold()) {
      case RevocableClaim::Hold::kTaken:
        return nullptr;
      case RevocableClaim::Hold::kRevoked:
        Tidy(slot);
        return nullptr;
      case RevocableClaim::Hold::kHeld:
        break;
    }
    // A revoker may have emptied the list since the count was read.
    if (slot.idle.empty()) {
      if (!slot.claim.LetGo()) Tidy(slot);
      return nullptr;
    }
    Context* context = slot.idle.back();
    const size_t bytes = Policy::Bytes(*context);
    slot.idle.pop_back();
    if (!slot.claim.RemoveAndLetGo(bytes)) {  // revoked: none is ours
      slot.idle.push_back(context);
      Tidy(slot);
      return nullptr;
    }
    books_.Unpool(bytes);
    return context;
  }

  // The slot's thread, not holding it: frees a revoked list.
  void Tidy(Slot& slot) {
    if (!slot.claim.revoked()) return;
    FreeRevoked(slot);
    slot.claim.Restore();
  }

  void Register(Slot* slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.push_back(slot);
  }

  // The slot's thread is exiting (`park`: its idle contexts go to the
  // reserve) or the pool is going (they are freed).
  void Retire(Slot& slot, bool park) {
    // Held until the contexts have moved, so that an EvictIdleIf either
    // revokes the slot or finds its contexts in the reserve.
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.erase(std::find(slots_.begin(), slots_.end(), &slot));
    // No revoker can reach the slot now, so its claim stays as read.
    if (slot.claim.revoked()) {
      FreeRevoked(slot);
    } else {
      for (Context* context : slot.idle) {
        if (park) {
          reserve_.Park(slot.key, context);
        } else {
          books_.DestroyIdle(context);
        }
      }
    }
    slot.idle.clear();
  }

  // Takes the slots of keys satisfying `pred` from their threads and frees
  // their contexts, or revokes a slot its thread holds, which frees them as
  // it lets go; returns the contexts' count.
  template <typename Pred>
  size_t RevokeIf(Pred& pred) {
    size_t revoked = 0;
    std::vector<Context*> taken;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // Checkouts from before the bump are stale; later ones asked for the
      // key knowing the change (raw mode may name any level), so they pool.
      const uint64_t stale =
          generation_.fetch_add(1, std::memory_order_acq_rel);
      if (retirements_.size() == kRetirementsKept) {
        newest_dropped_ = retirements_.front().stale;
        retirements_.pop_front();
      }
      retirements_.push_back({stale, pred});
      for (Slot* slot : slots_) {
        if (!pred(static_cast<const Key&>(slot->key))) continue;
        // Before Take, which the owner reads before pooling a checkout.
        slot->stale_in.store(stale, std::memory_order_relaxed);
        RevocableClaim::Held held;
        const bool took_list = slot->claim.Take(&held);
        revoked += held.contexts;
        if (took_list) {
          UnpoolOldest(*slot, slot->idle.size(), &held, &taken);
          slot->claim.GiveRevoked();
        } else {
          books_.budget->Release(held.bytes);
        }
      }
    }
    for (Context* context : taken) books_.Evict(context);
    return revoked;
  }

  // Frees idle contexts of living threads, each slot's oldest first, while
  // a slot holds more than `max_idle` or the budget more than its byte cap;
  // a slot its thread holds is revoked instead, and its thread frees it as
  // it lets go. Returns how many contexts gave up their bytes.
  size_t TrimTo(size_t max_idle) {
    size_t trimmed = 0;
    std::vector<Context*> taken;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (Slot* slot : slots_) {
        const uint64_t contexts = slot->claim.contexts();
        if (contexts == 0 || (contexts <= max_idle && !OverByteCap())) {
          continue;
        }
        RevocableClaim::Held held;
        if (!slot->claim.Take(&held)) {
          books_.budget->Release(held.bytes);
          trimmed += held.contexts;
          continue;
        }
        while (!slot->idle.empty() &&
               (slot->idle.size() > max_idle || OverByteCap())) {
          UnpoolOldest(*slot, 1, &held, &taken);
          ++trimmed;
        }
        slot->claim.Give(held);
      }
    }
    for (Context* context : taken) books_.Evict(context);
    return trimmed;
  }

 private:
  bool OverByteCap() const {
    return books_.budget->pooled_bytes() >
           books_.budget->limits().max_pooled_bytes;
  }

  // Moves the `count` oldest contexts of a slot the caller took out of the
  // slot, the books and `held`, into `taken`, to be freed once the lock is
  // let go.
  void UnpoolOldest(Slot& slot, size_t count, RevocableClaim::Held* held,
                    std::vector<Context*>* taken) {
    for (size_t i = 0; i < count; ++i) {
      Context* context = slot.idle[i];
      const size_t bytes = Policy::Bytes(*context);
      books_.Unpool(bytes);
      held->bytes -= bytes;
      --held->contexts;
      taken->push_back(context);
    }
    slot.idle.erase(slot.idle.begin(), slot.idle.begin() + count);
  }

  // Their revoker gave the budget their bytes back already.
  void FreeRevoked(Slot& slot) {
    for (Context* context : slot.idle) {
      books_.UnpoolRevoked(Policy::Bytes(*context));
      books_.Evict(context);
    }
    slot.idle.clear();
  }

  // The last EvictIdleIf predicates, with the generation each ended.
  struct Retirement {
    uint64_t stale;
    std::function<bool(const Key&)> pred;
  };
  static constexpr size_t kRetirementsKept = 8;

  PoolBooks<Policy>& books_;
  Reserve<Policy>& reserve_;
  // From 1, so that no checkout is stale by a slot's initial stale_in, 0.
  std::atomic<uint64_t> generation_{1};
  std::mutex mutex_;
  std::vector<Slot*> slots_;  // guarded; living threads' slots of this pool
  std::deque<Retirement> retirements_;  // guarded
  uint64_t newest_dropped_ = 0;         // guarded; 0, no checkout's, if none
};

// This thread's idle contexts, for every pool of this Policy type.
template <typename Policy>
class LocalCache {
 public:
  using Key = typename Policy::Key;
  using Slot = ThreadSlot<Policy>;

  // Null once this thread's cache is gone: thread_locals built before it
  // are destroyed after it, and may still hold handles.
  static LocalCache* Get() {
    if (Gone()) return nullptr;
    static thread_local LocalCache cache;
    return &cache;
  }

  LocalCache() = default;

  ~LocalCache() {
    Gone() = true;
    for (const std::unique_ptr<Slot>& slot : slots_) {
      slot->registry->Retire(*slot, /*park=*/true);
    }
  }

  LocalCache(const LocalCache&) = delete;
  LocalCache& operator=(const LocalCache&) = delete;

  Slot& SlotFor(const std::shared_ptr<SlotRegistry<Policy>>& registry,
                const Key& key) {
    for (const std::unique_ptr<Slot>& slot : slots_) {
      if (slot->registry == registry && slot->key == key) return *slot;
    }
    slots_.push_back(std::make_unique<Slot>(registry, key));
    registry->Register(slots_.back().get());
    return *slots_.back();
  }

  void DropPool(SlotRegistry<Policy>* registry) {
    auto owned_by_pool = [registry](const std::unique_ptr<Slot>& slot) {
      return slot->registry.get() == registry;
    };
    for (const std::unique_ptr<Slot>& slot : slots_) {
      if (owned_by_pool(slot)) registry->Retire(*slot, /*park=*/false);
    }
    slots_.erase(std::remove_if(slots_.begin(), slots_.end(), owned_by_pool),
                 slots_.end());
  }

 private:
  // Trivially destructible: still readable after the cache died.
  static bool& Gone() {
    static thread_local bool gone = false;
    return gone;
  }

  // At fixed addresses, which their pools keep.
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_THREAD_CACHE_H_
