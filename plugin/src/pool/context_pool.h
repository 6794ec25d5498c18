// A bounded, thread-local pool of expensive-to-create contexts. Layer 1 of
// pooled-gzip: it knows nothing of zlib or gRPC. A Policy says what a
// context is:
//
//   struct Policy {
//     using Context = ...;  // the pooled type
//     using Key = ...;      // never mixed; equality-comparable, copyable
//     static Context* Create(const Key&);   // nullptr on failure
//     static bool Reset(Context*);          // false: do not reuse
//     static size_t Bytes(const Context&);  // heap owned right now
//     static bool Shrink(Context*);         // frees kept buffers; false: none
//     static void Destroy(Context*);
//   };
//
// THE PROTOCOL: where a context is, and who may move it.
//
//   checked out  held by a Handle; counted live.
//   idle         in its thread's Slot for its key (pool/thread_cache.h),
//                its bytes claimed and recorded in the slot's
//                RevocableClaim. The slot's thread takes it out, or pools
//                into the slot, holding the claim's word, never waiting;
//                any other thread frees it only under the pool's lock,
//                having taken the word (pool/revocable_claim.h), which it
//                cannot while the slot's thread holds it.
//   revoked      still in its slot, whose thread held the word when another
//                thread came to free the slot's contexts: that thread took
//                the claim and gave its bytes back. Counted pooled until
//                the slot's thread frees it, as it lets go of the word.
//                Never checked out again.
//   parked       in the shared reserve (pool/reserve.h), moved there by its
//                thread at exit with its claim. Any thread adopts or evicts
//                it, under the reserve's lock.
//   destroyed    discarded (an error, or Reset failed), rejected by a cap,
//                evicted (stale, over a lowered cap, revoked, or pushed out
//                of the reserve), returned on an exiting thread, or freed
//                with the pool.
//
//   Acquire:  idle -> checked out (the slot's thread), else parked ->
//             checked out (any thread), else a new context.
//   Release:  checked out -> idle (of the releasing thread), or ->
//             destroyed when Reset fails, the checkout is stale, a cap
//             turns it away or another thread has the slot's word; to make
//             room, other keys' parked -> destroyed.
//   EvictIdleIf: idle -> destroyed (-> revoked while its thread holds the
//             word), parked -> destroyed.
//   EvictReserveIf, TrimReserve: parked -> destroyed.
//   TrimThreads: idle -> destroyed (-> revoked while its thread holds the
//             word), oldest of each slot first, while over a cap.
//   Thread exit: idle -> parked (revoked -> destroyed). Pool destroyed:
//             this thread's idle and every parked -> destroyed.
//
// So no idle context outlives a call that frees it, however long its
// thread stays idle: a thread holding the word at that moment lets go of
// it within the same checkout or return, and frees what was revoked then.
//
// Generations date checkouts, so that a level change reaches contexts
// checked out across it, on whichever thread they come back. Each
// EvictIdleIf advances the pool's. A context returned with the generation
// its settings were read in is stale, and destroyed, if an EvictIdleIf
// matched its key since: its slot's `stale_in` says so, or, for a key the
// thread had no slot of then, a predicate kept (Retired).
//
// The budget (pool/pool_books.h), shared by the pools given it, counts the
// bytes of idle and parked contexts: claimed as a context enters its slot
// (Release), given back as it leaves the books, by a revoker for a whole
// slot at once (pool/revocable_claim.h). Memory is bounded twice:
// `max_idle_per_thread_per_key` contexts per thread and key, and
// `max_pooled_bytes` in the budget; lowered, the caps bind what is idle
// once TrimReserve and TrimThreads have run.
//
// fork(): a pool's owner registers, once, a pthread_atfork handler that
// calls LockForFork before the fork and UnlockAfterFork after it, in parent
// and child, so that no lock stays held in the child; an owner that holds
// locks of its own while it uses the pool takes its own first. In the
// child, what other threads had is leaked, never freed twice: their idle
// contexts stay in their slots until an eviction or a trim frees them (a
// slot held at the fork stays revoked), their checkouts never return
// (Stats().live keeps them), and bytes claimed for a context not yet pooled
// stay claimed.

#ifndef POOLED_GZIP_SRC_POOL_CONTEXT_POOL_H_
#define POOLED_GZIP_SRC_POOL_CONTEXT_POOL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

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

  struct Returner {
    void operator()(Context* context) const {
      pool->Release(key, generation, context);
    }
    ThreadLocalPool* pool = nullptr;
    Key key{};
    uint64_t generation = 0;  // of the settings the checkout was for
  };

  // Destroying the handle returns the context (Discard does not). Must not
  // outlive the pool; to be released on the thread that acquired it, whose
  // slot is where EvictIdleIf marks it stale.
  using Handle = std::unique_ptr<Context, Returner>;

  explicit ThreadLocalPool(PoolLimits limits)
      : ThreadLocalPool(std::make_shared<IdleBudget>(limits)) {}
  explicit ThreadLocalPool(std::shared_ptr<IdleBudget> budget)
      : shared_(std::make_shared<Shared>(std::move(budget))),
        registry_(shared_, &shared_->registry) {}

  // Other threads' idle contexts are destroyed when they exit.
  ~ThreadLocalPool() {
    if (Cache* cache = Cache::Get()) cache->DropPool(registry_.get());
    shared_->reserve.Close();
  }

  ThreadLocalPool(const ThreadLocalPool&) = delete;
  ThreadLocalPool& operator=(const ThreadLocalPool&) = delete;

  uint64_t generation() const { return registry_->generation(); }

  // An idle context for `key` from this thread or the reserve, or a new
  // one; null if the policy could not create one. `settings_generation`
  // (generation() read before the settings that named `key`) makes a
  // checkout for settings an EvictIdleIf retired come back stale.
  Handle Acquire(const Key& key, uint64_t settings_generation = 0) {
    const uint64_t generation = registry_->generation();
    const Returner returner{this, key,
                            settings_generation != 0
                                ? std::min(settings_generation, generation)
                                : generation};
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

  // For later releases, in every pool sharing the budget; what is idle
  // stays until TrimReserve and TrimThreads.
  void SetLimits(const PoolLimits& limits) {
    books().budget->SetLimits(limits);
  }

  // Frees parked contexts, oldest first, while the budget holds more than
  // its byte cap. Returns how many.
  size_t TrimReserve() { return shared_->reserve.EvictOverCap(); }

  // Frees living threads' idle contexts, the oldest of each thread's list
  // first, while a list holds more than the per-thread cap or the budget
  // more than its byte cap. A list its thread is changing at that moment
  // is revoked whole instead, its bytes given back now, and freed by its
  // thread as it lets go. Returns how many contexts gave up their bytes.
  size_t TrimThreads() {
    return registry_->TrimTo(
        std::min<size_t>(books().budget->limits().max_idle_per_thread_per_key,
                         RevocableClaim::kMaxContexts));
  }

  PoolLimits limits() const { return shared_->books.budget->limits(); }

  // Frees the reserve's contexts whose key satisfies `pred` and returns how
  // many; living threads' own stay. `pred` gets a const Key& under the
  // reserve's lock: it must not use the pool.
  template <typename Pred>
  size_t EvictReserveIf(Pred pred) {
    return shared_->reserve.EvictIf(pred);
  }

  // As EvictReserveIf, and living threads' idle contexts of those keys are
  // freed too (a list its thread is changing at that moment is revoked,
  // its bytes given back now, and freed by its thread as it lets go).
  // Checkouts of those keys from before this call (or for settings read
  // before it) are freed when they come back. Returns how many contexts
  // gave up their bytes. `pred` runs under the pool's locks and must not
  // use the pool; a copy is kept.
  template <typename Pred>
  size_t EvictIdleIf(Pred pred) {
    // Threads' first: one exiting meanwhile parks in the reserve, evicted next.
    const size_t revoked = registry_->RevokeIf(pred);
    return revoked + shared_->reserve.EvictIf(pred);
  }

  // For the owner's pthread_atfork handler, in the pool's nesting order:
  // an exiting thread parks its contexts while it holds the slots' lock.
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

  // Outlives the pool while any thread holds a slot of it.
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
    // A revoked claim takes no Add until its contexts are freed.
    registry_->Tidy(slot);
    if (SlotRegistry<Policy>::Stale(slot, generation) ||
        registry_->Retired(key, generation)) {
      books().Evict(context);
      return;
    }
    size_t bytes = Policy::Bytes(*context);
    const size_t max_idle =
        std::min<size_t>(books().budget->limits().max_idle_per_thread_per_key,
                         RevocableClaim::kMaxContexts);
    // With the byte cap full, other keys' parked contexts give way (else a
    // key nobody asks for would keep it full), then what the context keeps
    // between uses, before the context itself.
    const auto claim = [&] {
      return books().budget->Claim(bytes) ||
             shared_->reserve.EvictForRoom(key, bytes);
    };
    if (slot.claim.contexts() >= max_idle ||
        !(claim() || (Policy::Shrink(context) &&
                      (bytes = Policy::Bytes(*context), claim())))) {
      books().rejected.fetch_add(1, std::memory_order_relaxed);
      books().Destroy(context);
      return;
    }
    books().Pool(bytes);
    // A revoker that came since Tidy has the slot, or revoked it: the
    // context is then evicted if a revoker has the slot or it is now stale,
    // else pooled once the slot is tidied.
    for (;;) {
      switch (slot.claim.TryHold()) {
        case RevocableClaim::Hold::kHeld:
          slot.idle.push_back(context);
          if (slot.claim.AddAndLetGo(bytes)) return;
          slot.idle.pop_back();
          break;
        case RevocableClaim::Hold::kRevoked:
          break;
        case RevocableClaim::Hold::kTaken:
          books().Unpool(bytes);
          books().Evict(context);
          return;
      }
      registry_->Tidy(slot);
      if (SlotRegistry<Policy>::Stale(slot, generation)) {
        books().Unpool(bytes);
        books().Evict(context);
        return;
      }
    }
  }

  std::shared_ptr<Shared> shared_;
  // Points into shared_ and shares its ownership; what slots hold.
  std::shared_ptr<SlotRegistry<Policy>> registry_;
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_CONTEXT_POOL_H_
