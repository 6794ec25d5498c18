// The thread-local cache: each thread's free lists, one Slot per pool and
// key, and the registry through which other threads reach them.
//
// Only a slot's thread touches its `idle` list. Any thread may revoke a
// slot's claim on the budget (SlotRegistry::RevokeIf, for EvictIdleIf); its
// thread then frees the revoked contexts on its next use of any pool
// (pool/thread_caches.h), or when it exits. pool/context_pool.h states the
// protocol these follow.

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
#include "pool/thread_caches.h"

namespace pooled_gzip {
namespace internal {

template <typename Policy>
class SlotRegistry;

// One thread's idle contexts of one key in one pool. Registered with the
// pool while it exists, so that EvictIdleIf can take its claim on the
// budget from any thread; only its thread touches `idle`.
template <typename Policy>
struct ThreadSlot {
  using Context = typename Policy::Context;
  using Key = typename Policy::Key;

  ThreadSlot(std::shared_ptr<SlotRegistry<Policy>> owner, const Key& slot_key)
      : registry(std::move(owner)), key(slot_key) {}

  // Keeps the pool's books alive while the thread holds the slot.
  const std::shared_ptr<SlotRegistry<Policy>> registry;
  const Key key;
  std::vector<Context*> idle;
  // What `idle` holds against the budget, unless revoked: then nothing,
  // and every context in `idle` is the thread's to free.
  RevocableClaim claim;
  // The pool's generation just before the last EvictIdleIf that matched
  // `key`: contexts checked out in it or earlier are of settings no longer
  // in use.
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

  // For the pool's fork handlers: the slots' lock comes before the
  // reserve's.
  std::mutex& mutex() { return mutex_; }

  // A context checked out in `generation` whose key EvictIdleIf matched
  // since. May be seen late, but never after a failed Add or a Restore:
  // both read the Revoke that followed the store.
  static bool Stale(const Slot& slot, uint64_t generation) {
    return slot.stale_in.load(std::memory_order_relaxed) >= generation;
  }

  // The same for a key of no slot of the thread when EvictIdleIf ran
  // (a checkout whose slot came later, for settings read before): from
  // the predicates kept. Older than those kept counts as retired, which
  // costs at most a context made again.
  bool Retired(const Key& key, uint64_t checked_out) {
    if (checked_out >= generation_.load(std::memory_order_acquire)) {
      return false;  // no EvictIdleIf since
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (retirements_dropped_ && newest_dropped_ >= checked_out) return true;
    for (const Retirement& retirement : retirements_) {
      if (retirement.stale >= checked_out && retirement.pred(key)) {
        return true;
      }
    }
    return false;
  }

  // An idle context of this thread's `slot`, taken out of the books, or
  // null.
  Context* Pop(Slot& slot) {
    if (slot.idle.empty()) return nullptr;
    Context* context = slot.idle.back();
    const size_t bytes = Policy::Bytes(*context);
    if (!slot.claim.Remove(bytes)) {  // revoked: none of them is ours
      Tidy(slot);
      return nullptr;
    }
    slot.idle.pop_back();
    books_.Unpool(bytes);
    return context;
  }

  // Frees this thread's contexts in `slot` if their claim was revoked.
  void Tidy(Slot& slot) {
    if (!slot.claim.revoked()) return;
    FreeRevoked(slot);
    slot.claim.Restore();
  }

  void Register(Slot* slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.push_back(slot);
  }

  // The slot's thread is exiting (`park`) or the pool is going: its idle
  // contexts go to the reserve, or are freed.
  void Retire(Slot& slot, bool park) {
    // Held until the contexts have moved, so that an EvictIdleIf either
    // revokes the slot first or finds its contexts in the reserve after:
    // parked between the two, stale ones would hold the budget.
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

  // Gives the budget back the bytes of living threads' idle contexts of
  // keys satisfying `pred` and returns how many contexts they are. Their
  // threads free them, and only then stop counting them as pooled: until
  // then they hold their heap.
  template <typename Pred>
  size_t RevokeIf(Pred& pred) {
    size_t revoked = 0;
    std::lock_guard<std::mutex> lock(mutex_);
    // Checkouts of the matching keys from before the bump are stale;
    // later ones asked for the key knowing the change (raw mode may name
    // a level other than the configured one), so they pool as usual.
    const uint64_t stale = generation_.fetch_add(1, std::memory_order_acq_rel);
    if (retirements_.size() == kRetirementsKept) {
      retirements_dropped_ = true;
      newest_dropped_ = retirements_.front().stale;
      retirements_.pop_front();
    }
    retirements_.push_back({stale, pred});
    for (Slot* slot : slots_) {
      if (!pred(static_cast<const Key&>(slot->key))) continue;
      // Before Revoke, whose write the owner reads before it could pool
      // a stale checkout.
      slot->stale_in.store(stale, std::memory_order_relaxed);
      const RevocableClaim::Held held = slot->claim.Revoke();
      books_.budget->Release(held.bytes);
      revoked += held.contexts;
    }
    ThreadCaches::CountRevocation();
    return revoked;
  }

 private:
  // The revoker gave their bytes back to the budget; they stayed idle,
  // and counted so, until now.
  void FreeRevoked(Slot& slot) {
    for (Context* context : slot.idle) {
      books_.UnpoolRevoked(Policy::Bytes(*context));
      books_.Evict(context);
    }
    slot.idle.clear();
  }

  // The last EvictIdleIf predicates, with the generation each ended
  // (Retired).
  struct Retirement {
    uint64_t stale;
    std::function<bool(const Key&)> pred;
  };
  static constexpr size_t kRetirementsKept = 8;

  PoolBooks<Policy>& books_;
  Reserve<Policy>& reserve_;
  // Advanced by each EvictIdleIf. From 1, so that no checkout is older
  // than a slot's initial stale_in.
  std::atomic<uint64_t> generation_{1};
  std::mutex mutex_;
  std::vector<Slot*> slots_;  // guarded; living threads' slots of this pool
  std::deque<Retirement> retirements_;  // guarded
  bool retirements_dropped_ = false;    // guarded
  uint64_t newest_dropped_ = 0;         // guarded
};

// This thread's idle contexts, for every pool of this Policy type.
template <typename Policy>
class LocalCache {
 public:
  using Key = typename Policy::Key;
  using Slot = ThreadSlot<Policy>;

  // Null while this thread is exiting and its cache is already gone:
  // thread_local objects built before the cache are destroyed after it,
  // and may still hold handles.
  static LocalCache* Get() {
    if (Gone()) return nullptr;
    static thread_local LocalCache cache;
    return &cache;
  }

  LocalCache() : listed_(ThreadCaches::Add(this, &TidyAll)) {}

  ~LocalCache() {
    Gone() = true;
    if (listed_) ThreadCaches::Remove(this);
    for (const std::unique_ptr<Slot>& slot : slots_) {
      slot->registry->Retire(*slot, /*park=*/true);
    }
  }

  LocalCache(const LocalCache&) = delete;
  LocalCache& operator=(const LocalCache&) = delete;

  // This thread's slot for `key` in the pool of `registry`. Once per
  // revocation anywhere in the process, first frees what was revoked in
  // every cache of this thread, of any pool and key: the thread may never
  // ask for those keys, nor use that pool, again.
  Slot& SlotFor(const std::shared_ptr<SlotRegistry<Policy>>& registry,
                const Key& key) {
    if (listed_) {
      ThreadCaches::TidyIfRevoked();
    } else if (ThreadCaches::Revoked(&seen_)) {
      TidyAll(this);
    }
    Slot* found = nullptr;
    for (const std::unique_ptr<Slot>& slot : slots_) {
      if (slot->registry.get() == registry.get() && slot->key == key) {
        found = slot.get();
        break;
      }
    }
    if (found == nullptr) {
      slots_.push_back(std::make_unique<Slot>(registry, key));
      found = slots_.back().get();
      registry->Register(found);
    }
    return *found;
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
  static void TidyAll(void* cache) {
    for (const std::unique_ptr<Slot>& slot :
         static_cast<LocalCache*>(cache)->slots_) {
      slot->registry->Tidy(*slot);
    }
  }

  // Trivially destructible, so it can still be read after the cache died.
  static bool& Gone() {
    static thread_local bool gone = false;
    return gone;
  }

  // Each at a fixed address, which its pool keeps while it exists.
  std::vector<std::unique_ptr<Slot>> slots_;
  const bool listed_;  // with ThreadCaches, which tidies it
  uint64_t seen_ = 0;  // unlisted: the revocations it last tidied after
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_THREAD_CACHE_H_
