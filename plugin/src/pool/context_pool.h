// A bounded, thread-local pool of expensive-to-create contexts.
//
// Layer 1 of pooled-gzip: it knows nothing of zlib or gRPC. What a context is,
// how it is created, reset, measured and destroyed comes from a Policy:
//
//   struct Policy {
//     using Context = ...;   // the pooled type
//     using Key = ...;       // contexts with different keys never mix;
//                            // must be equality-comparable and copyable
//     static Context* Create(const Key&);        // nullptr on failure
//     static bool Reset(Context*);               // false: do not reuse
//     static size_t Bytes(const Context&);       // heap owned right now
//     static bool Shrink(Context*);              // frees what it keeps
//                                                // between uses; false if
//                                                // it kept nothing
//     static void Destroy(Context*);
//   };
//
// THE PROTOCOL
//
// Where a context is, and who may move it:
//
//   checked out  held by a Handle; counted live, not pooled. Its holder
//                returns it (Release) into the free list of the thread it
//                releases it on, meant to be the one that acquired it.
//   idle         in its thread's Slot for its key (pool/thread_cache.h);
//                counted pooled, its bytes claimed from the budget and
//                recorded in the slot's RevocableClaim. Only the slot's
//                thread takes it out (Acquire) or frees it.
//   revoked      still in its thread's slot, but EvictIdleIf (any thread)
//                revoked the slot's claim and gave its bytes back to the
//                budget. Still counted pooled: it holds its heap until its
//                thread frees it, on its next use of any pool
//                (pool/thread_caches.h) or at exit. Never checked out again.
//   parked       in the shared reserve (pool/reserve.h), moved there by its
//                thread at exit; keeps its budget claim. Any thread adopts
//                or evicts it, under the reserve's lock.
//   destroyed    counted destroyed: discarded (saw an error, or Reset
//                failed), rejected by a cap, evicted (stale, revoked, or
//                pushed out of the reserve), returned on a thread that is
//                exiting, or freed with the pool.
//
//   Acquire:  idle -> checked out (the slot's thread), else parked ->
//             checked out (any thread), else a new context.
//   Release:  checked out -> idle, or -> destroyed when Reset fails, when
//             the checkout is stale, or when a cap turns it away; to make
//             room, other keys' parked -> destroyed (EvictForRoom).
//   EvictIdleIf: idle -> revoked (any thread), parked -> destroyed.
//   EvictReserveIf: parked -> destroyed.
//   Thread exit: idle -> parked (revoked -> destroyed); pool destroyed:
//             this thread's idle and every parked -> destroyed.
//
// A generation dates checkouts. The pool's starts at 1 and each EvictIdleIf
// advances it; a Handle carries the generation its settings were read in.
// A returned context is stale, and destroyed instead of pooled, when an
// EvictIdleIf matched its key after that generation: its slot's `stale_in`
// says so, or, for a key the thread had no slot of then, one of the last
// predicates kept (Retired). So a level change reaches contexts checked out
// across it, on whichever thread they come back.
//
// The budget (pool/idle_budget.h), shared by every pool given the same one,
// counts the bytes of idle and parked contexts:
//   - claimed by Release, before the context enters its slot: Claim, else
//     room made by evicting other keys' parked contexts, else the context
//     shrinks (Policy::Shrink) and tries again, else it is rejected;
//   - carried over when a thread parks its idle contexts at exit;
//   - released when a context leaves the books: checked out again (by its
//     thread from a slot, by anyone from the reserve) or freed, the pool's
//     own counters first (PoolBooks::Unpool);
//   - released for a whole slot at once by a revoker, which takes the
//     slot's claim: the claim's one atomic word (pool/revocable_claim.h)
//     decides whether the owner or the revoker gives each byte back, so it
//     is never given back twice nor kept by nobody.
// Memory is bounded twice: at most `max_idle_per_thread_per_key` idle
// contexts per thread and key, and `max_pooled_bytes` in the budget.
//
// A checkout is a std::unique_ptr whose deleter returns the context, so a
// context goes back exactly once by construction. Code that saw the context
// fail calls Discard() instead, which destroys it.
//
// fork(): the child has only the forking thread, so a lock another thread
// held at that moment would stay held in it for ever, and the child's first
// Acquire or Release that needs it would hang. Whoever owns a pool that may
// be in use when the process forks registers, once, a pthread_atfork handler
// that calls LockForFork before the fork and UnlockAfterFork after it, in
// the parent and in the child alike: the forking thread then holds every
// lock while the process is copied, so none is copied half-way through a
// change. The order is the pool's own nesting, slots then reserve (a thread
// exiting parks its contexts while it holds the slots); an owner that takes
// a pool's locks while holding locks of its own takes its own first. In the
// child, what the other threads had is leaked, never freed twice: their
// idle contexts stay in their slots (EvictIdleIf may still take the slots'
// bytes back), and the contexts they had checked out are never returned,
// so Stats().live counts them for good; a thread caught by the fork between
// claiming budget bytes and pooling a context leaves those bytes claimed.

#ifndef POOLED_GZIP_SRC_POOL_CONTEXT_POOL_H_
#define POOLED_GZIP_SRC_POOL_CONTEXT_POOL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "pool/idle_budget.h"
#include "pool/pool_books.h"
#include "pool/reserve.h"
#include "pool/revocable_claim.h"
#include "pool/thread_cache.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip {
namespace internal {

template <typename Policy>
class ThreadLocalPool {
 public:
  using Context = typename Policy::Context;
  using Key = typename Policy::Key;

  class Returner {
   public:
    Returner() = default;
    Returner(ThreadLocalPool* pool, Key key, uint64_t generation)
        : pool_(pool), key_(key), generation_(generation) {}
    void operator()(Context* context) const {
      pool_->Release(key_, generation_, context);
    }

   private:
    ThreadLocalPool* pool_ = nullptr;
    Key key_{};
    uint64_t generation_ = 0;  // the pool's when the context was checked out
  };

  // A checked-out context; destroying the handle returns it to this thread's
  // free list. Must not outlive the pool, and is to be released on the
  // thread that acquired it: that thread's list is where an EvictIdleIf
  // marks a checkout of an evicted key as stale.
  using Handle = std::unique_ptr<Context, Returner>;

  explicit ThreadLocalPool(PoolLimits limits = {})
      : ThreadLocalPool(std::make_shared<IdleBudget>(limits)) {}
  explicit ThreadLocalPool(std::shared_ptr<IdleBudget> budget)
      : shared_(std::make_shared<Shared>(std::move(budget))),
        registry_(shared_, &shared_->registry) {}

  // This thread's idle contexts and the reserve are destroyed now; other
  // threads' when they exit.
  ~ThreadLocalPool() {
    if (Cache* cache = Cache::Get()) cache->DropPool(registry_.get());
    shared_->reserve.Close();
  }

  ThreadLocalPool(const ThreadLocalPool&) = delete;
  ThreadLocalPool& operator=(const ThreadLocalPool&) = delete;

  // The pool's generation: read before the settings that name a key, and
  // given to Acquire with it, it dates the checkout to that read.
  uint64_t generation() const { return registry_->generation(); }

  // Returns an idle context for `key` from this thread or the reserve, or a
  // new one. A null handle means the policy could not create a context.
  // `settings_generation`, if given, is generation() read before the
  // settings that named `key`: a context checked out after an EvictIdleIf
  // that matched `key`, for settings read before it, then returns stale
  // (not pooled), as one checked out before it does.
  Handle Acquire(const Key& key, uint64_t settings_generation = 0) {
    const uint64_t generation = registry_->generation();
    const Returner returner(this, key,
                            settings_generation != 0
                                ? std::min(settings_generation, generation)
                                : generation);
    Context* context = nullptr;
    if (Cache* cache = Cache::Get()) {
      context = registry_->Pop(cache->SlotFor(registry_, key));
    }
    if (context == nullptr) context = shared_->reserve.Adopt(key);
    if (context != nullptr) {
      books().reused.fetch_add(1, std::memory_order_relaxed);
    } else {
      context = Policy::Create(key);
      if (context == nullptr) return Handle(nullptr, returner);
      books().created.fetch_add(1, std::memory_order_relaxed);
    }
    return Handle(context, returner);
  }

  // Destroys a context that saw an error, so that it is never reused.
  void Discard(Handle handle) {
    Context* context = handle.release();
    if (context == nullptr) return;
    books().discarded.fetch_add(1, std::memory_order_relaxed);
    books().Destroy(context);
  }

  // Caps apply to contexts released from now on; idle ones are not trimmed.
  // With a shared budget, this sets the caps of every pool sharing it.
  void SetLimits(const PoolLimits& limits) {
    books().budget->SetLimits(limits);
  }

  PoolLimits limits() const { return shared_->books.budget->limits(); }

  // Frees the reserve's idle contexts whose key satisfies `pred` and returns
  // how many, so that whoever changes the backend or level need not wait for
  // the byte cap to push out contexts nobody will ask for again. Living
  // threads' own idle contexts stay until reused or their thread exits.
  // `pred` gets a const Key& under the reserve's lock: it must not use the
  // pool.
  template <typename Pred>
  size_t EvictReserveIf(Pred pred) {
    return shared_->reserve.EvictIf(pred);
  }

  // As EvictReserveIf, and living threads' idle contexts of those keys give
  // their bytes back to the budget now; their thread frees them (counted
  // evicted, and pooled until then) the next time it uses any pool, or when
  // it exits. Contexts of those keys checked out before this call (or
  // for settings read before it: Acquire) are freed, not pooled, when they
  // come back, on any thread. Returns how many idle contexts gave up their
  // bytes. `pred` gets a const Key& under the pool's locks: it must not use
  // the pool; a copy is kept to judge those returns.
  template <typename Pred>
  size_t EvictIdleIf(Pred pred) {
    // Threads' lists first: a thread exiting meanwhile would park them in
    // the reserve.
    const size_t revoked = registry_->RevokeIf(pred);
    return revoked + shared_->reserve.EvictIf(pred);
  }

  // For the owner's pthread_atfork handler (see the top of this file):
  // takes the pool's locks, and gives them back, in the pool's own order.
  void LockForFork() {
    registry_->mutex().lock();
    shared_->reserve.mutex().lock();
  }
  void UnlockAfterFork() {
    shared_->reserve.mutex().unlock();
    registry_->mutex().unlock();
  }

  PoolCounters Stats() const {
    return shared_->books.Stats(shared_->reserve.size());
  }

 private:
  using Cache = LocalCache<Policy>;
  using Slot = ThreadSlot<Policy>;

  // Outlives the pool object while any thread still holds a slot of it, so
  // that thread exit can always account for what it destroys.
  struct Shared {
    explicit Shared(std::shared_ptr<IdleBudget> budget)
        : books(std::move(budget)) {}

    PoolBooks<Policy> books;
    Reserve<Policy> reserve{books};
    SlotRegistry<Policy> registry{books, reserve};
  };

  PoolBooks<Policy>& books() { return shared_->books; }

  // checked out -> idle, or -> destroyed (see the protocol above).
  void Release(const Key& key, uint64_t generation, Context* context) {
    if (!Policy::Reset(context)) {
      books().discarded.fetch_add(1, std::memory_order_relaxed);
      books().Destroy(context);
      return;
    }
    Cache* cache = Cache::Get();
    if (cache == nullptr) {  // this thread is exiting
      books().Destroy(context);
      return;
    }
    Slot& slot = cache->SlotFor(registry_, key);
    // A revoked slot is emptied first: a claim can be added to only once
    // its revoked contexts are freed.
    registry_->Tidy(slot);
    if (SlotRegistry<Policy>::Stale(slot, generation) ||
        registry_->Retired(key, generation)) {
      books().Evict(context);
      return;
    }
    size_t bytes = Policy::Bytes(*context);
    const size_t max_idle =
        std::min<size_t>(books().budget->max_idle_per_thread_per_key(),
                         RevocableClaim::kMaxContexts);
    // With the byte cap full, exited threads' contexts of other keys give
    // way: otherwise contexts of a key nobody asks for any more (after a
    // level change, say) would keep the cap full, and every context of the
    // keys in use would be destroyed on return. Then what the context keeps
    // between uses gives way, before the context itself.
    const auto claim = [&] {
      return books().budget->Claim(bytes) ||
             shared_->reserve.EvictForRoom(key, bytes);
    };
    if (slot.idle.size() >= max_idle ||
        !(claim() || (Policy::Shrink(context) &&
                      (bytes = Policy::Bytes(*context), claim())))) {
      books().rejected.fetch_add(1, std::memory_order_relaxed);
      books().Destroy(context);
      return;
    }
    books().Pool(bytes);
    // The budget is claimed; the slot's claim records it unless a revoker
    // came between Tidy and here. Then the context is out of the books
    // again if its checkout is now stale, else it waits for the slot to be
    // tidied and is recorded in the claim restored.
    while (!slot.claim.Add(bytes)) {
      registry_->Tidy(slot);
      if (SlotRegistry<Policy>::Stale(slot, generation)) {
        books().Unpool(bytes);
        books().Evict(context);
        return;
      }
    }
    slot.idle.push_back(context);
  }

  std::shared_ptr<Shared> shared_;
  // Points into shared_, and shares its ownership: what slots hold.
  std::shared_ptr<SlotRegistry<Policy>> registry_;
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_CONTEXT_POOL_H_
