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
// Each thread keeps its own free list per key, so Acquire and release take no
// lock; the only shared state is a handful of atomic counters. When a thread
// exits, its idle contexts move to a shared reserve, kept per key, which a
// thread whose own list is empty checks (under a lock) before creating a
// context: servers retire and start threads all the time (gRPC's sync server
// does), and without the reserve every new thread would pay for new
// contexts.
// Memory is bounded twice: at most `max_idle_per_thread_per_key` idle
// contexts per thread and key, and at most `max_pooled_bytes` idle bytes in
// an IdleBudget, which several pools may share, reserve included. Whatever
// would exceed either cap is destroyed instead of pooled; but before the
// byte cap turns a returned context away, the pool's reserve gives up its
// contexts of other keys, oldest parked first, so that contexts of keys no
// longer in use cannot hold the cap for ever (EvictReserveIf frees them on
// request), and then the context gives up what it keeps between uses (a
// large message's buffers), so that only the budget, not a fixed size,
// decides what a context may keep. Living threads' contexts of such keys are
// reached by EvictIdleIf: it takes their claim on the byte cap at once, from
// any thread, and their thread frees them the next time it uses any pool (or
// exits; pool/thread_caches.h), so a thread that stays parked cannot keep
// the cap from the keys in use.
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
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "pool/revocable_claim.h"
#include "pool/thread_caches.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip {
namespace internal {

struct PoolLimits {
  size_t max_idle_per_thread_per_key = 2;
  size_t max_pooled_bytes = size_t{64} << 20;
};

// The caps, and the idle bytes counted against them, of one or more pools.
class IdleBudget {
 public:
  explicit IdleBudget(const PoolLimits& limits = {}) { SetLimits(limits); }

  void SetLimits(const PoolLimits& limits) {
    max_idle_per_thread_per_key_.store(limits.max_idle_per_thread_per_key,
                                       std::memory_order_relaxed);
    max_pooled_bytes_.store(limits.max_pooled_bytes, std::memory_order_relaxed);
  }

  PoolLimits limits() const {
    PoolLimits limits;
    limits.max_idle_per_thread_per_key =
        max_idle_per_thread_per_key_.load(std::memory_order_relaxed);
    limits.max_pooled_bytes = max_pooled_bytes_.load(std::memory_order_relaxed);
    return limits;
  }

  size_t max_idle_per_thread_per_key() const {
    return max_idle_per_thread_per_key_.load(std::memory_order_relaxed);
  }

  // Bytes a Claim could have now; others may take them first.
  // Heap held by idle contexts of every pool sharing this budget: one
  // counter, so exact at any moment, and never above the cap it had when
  // the last context was claimed.
  uint64_t pooled_bytes() const {
    return pooled_bytes_.load(std::memory_order_relaxed);
  }

  size_t available() const {
    const uint64_t cap = max_pooled_bytes_.load(std::memory_order_relaxed);
    const uint64_t pooled = pooled_bytes_.load(std::memory_order_relaxed);
    return pooled < cap ? cap - pooled : 0;
  }

  // Claims `bytes` of the idle budget, or returns false.
  bool Claim(size_t bytes) {
    const uint64_t cap = max_pooled_bytes_.load(std::memory_order_relaxed);
    uint64_t current = pooled_bytes_.load(std::memory_order_relaxed);
    do {
      if (current + bytes > cap) return false;
    } while (!pooled_bytes_.compare_exchange_weak(current, current + bytes,
                                                  std::memory_order_relaxed));
    return true;
  }

  void Release(size_t bytes) {
    pooled_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
  }

 private:
  std::atomic<size_t> max_idle_per_thread_per_key_{0};
  std::atomic<size_t> max_pooled_bytes_{0};
  std::atomic<uint64_t> pooled_bytes_{0};
};

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
      : shared_(std::make_shared<Shared>(std::move(budget))) {}

  // This thread's idle contexts and the reserve are destroyed now; other
  // threads' when they exit.
  ~ThreadLocalPool() {
    if (LocalCache* cache = LocalCache::Get()) cache->DropPool(shared_.get());
    shared_->CloseReserve();
  }

  ThreadLocalPool(const ThreadLocalPool&) = delete;
  ThreadLocalPool& operator=(const ThreadLocalPool&) = delete;

  // The pool's generation: read before the settings that name a key, and
  // given to Acquire with it, it dates the checkout to that read.
  uint64_t generation() const {
    return shared_->generation.load(std::memory_order_acquire);
  }

  // Returns an idle context for `key` from this thread or the reserve, or a
  // new one. A null handle means the policy could not create a context.
  // `settings_generation`, if given, is generation() read before the
  // settings that named `key`: a context checked out after an EvictIdleIf
  // that matched `key`, for settings read before it, then returns stale
  // (not pooled), as one checked out before it does.
  Handle Acquire(const Key& key, uint64_t settings_generation = 0) {
    const uint64_t generation =
        shared_->generation.load(std::memory_order_acquire);
    const Returner returner(this, key,
                            settings_generation != 0
                                ? std::min(settings_generation, generation)
                                : generation);
    Context* context = nullptr;
    if (LocalCache* cache = LocalCache::Get()) {
      context = shared_->Pop(cache->SlotFor(shared_, key));
    }
    if (context == nullptr) {
      context = shared_->Adopt(key);
      if (context != nullptr) shared_->Unpool(Policy::Bytes(*context));
    }
    if (context != nullptr) {
      shared_->reused.fetch_add(1, std::memory_order_relaxed);
    } else {
      context = Policy::Create(key);
      if (context == nullptr) return Handle(nullptr, returner);
      shared_->created.fetch_add(1, std::memory_order_relaxed);
    }
    return Handle(context, returner);
  }

  // Destroys a context that saw an error, so that it is never reused.
  void Discard(Handle handle) {
    Context* context = handle.release();
    if (context == nullptr) return;
    shared_->discarded.fetch_add(1, std::memory_order_relaxed);
    shared_->Destroy(context);
  }

  // Caps apply to contexts released from now on; idle ones are not trimmed.
  // With a shared budget, this sets the caps of every pool sharing it.
  void SetLimits(const PoolLimits& limits) {
    shared_->budget->SetLimits(limits);
  }

  PoolLimits limits() const { return shared_->budget->limits(); }

  // Frees the reserve's idle contexts whose key satisfies `pred` and returns
  // how many, so that whoever changes the backend or level need not wait for
  // the byte cap to push out contexts nobody will ask for again. Living
  // threads' own idle contexts stay until reused or their thread exits.
  // `pred` gets a const Key& under the reserve's lock: it must not use the
  // pool.
  template <typename Pred>
  size_t EvictReserveIf(Pred pred) {
    return shared_->EvictIf(pred);
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
    const size_t revoked = shared_->RevokeIf(pred);
    return revoked + shared_->EvictIf(pred);
  }

  // For the owner's pthread_atfork handler (see the top of this file):
  // takes the pool's locks, and gives them back, in the pool's own order.
  void LockForFork() {
    shared_->slots_mutex.lock();
    shared_->reserve_mutex.lock();
  }
  void UnlockAfterFork() {
    shared_->reserve_mutex.unlock();
    shared_->slots_mutex.unlock();
  }

  PoolCounters Stats() const {
    PoolCounters stats;
    // `destroyed` first: every context is counted created before it can be
    // counted destroyed, and the acquire pairs with Destroy's release, so
    // `created` read after it is never behind. Read the other way round,
    // traffic in between could make `live` wrap.
    stats.destroyed = shared_->destroyed.load(std::memory_order_acquire);
    stats.created = shared_->created.load(std::memory_order_relaxed);
    stats.reused = shared_->reused.load(std::memory_order_relaxed);
    stats.discarded = shared_->discarded.load(std::memory_order_relaxed);
    stats.rejected_by_caps = shared_->rejected.load(std::memory_order_relaxed);
    stats.evicted = shared_->evicted.load(std::memory_order_relaxed);
    stats.pooled = shared_->pooled.load(std::memory_order_relaxed);
    stats.in_reserve = shared_->reserve_size.load(std::memory_order_relaxed);
    stats.pooled_bytes = shared_->pooled_bytes.load(std::memory_order_relaxed);
    stats.live = stats.created > stats.destroyed
                     ? stats.created - stats.destroyed
                     : 0;  // a gauge, so never a wrapped count
    return stats;
  }

 private:
  struct Shared;

  // One thread's idle contexts of one key in one pool. Registered with the
  // pool while it exists, so that EvictIdleIf can take its claim on the
  // budget from any thread; only its thread touches `idle`.
  struct Slot {
    Slot(std::shared_ptr<Shared> owner, const Key& slot_key)
        : shared(std::move(owner)), key(slot_key) {}

    const std::shared_ptr<Shared> shared;
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

  // Outlives the pool object while any thread still holds idle contexts for
  // it, so that thread exit can always account for what it destroys.
  struct Shared {
    explicit Shared(std::shared_ptr<IdleBudget> idle_budget)
        : budget(std::move(idle_budget)) {}

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
      if (checked_out >= generation.load(std::memory_order_acquire)) {
        return false;  // no EvictIdleIf since
      }
      std::lock_guard<std::mutex> lock(slots_mutex);
      if (retirements_dropped && newest_dropped >= checked_out) return true;
      for (const Retirement& retirement : retirements) {
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
      Unpool(bytes);
      return context;
    }

    // Frees this thread's contexts in `slot` if their claim was revoked.
    void Tidy(Slot& slot) {
      if (!slot.claim.revoked()) return;
      FreeRevoked(slot);
      slot.claim.Restore();
    }

    // The revoker gave their bytes back to the budget; they stayed idle,
    // and counted so, until now.
    void FreeRevoked(Slot& slot) {
      for (Context* context : slot.idle) {
        pooled_bytes.fetch_sub(Policy::Bytes(*context),
                               std::memory_order_relaxed);
        pooled.fetch_sub(1, std::memory_order_relaxed);
        Evict(context);
      }
      slot.idle.clear();
    }

    void Register(Slot* slot) {
      std::lock_guard<std::mutex> lock(slots_mutex);
      slots.push_back(slot);
    }

    // The slot's thread is exiting (`park`) or the pool is going: its idle
    // contexts go to the reserve, or are freed.
    void Retire(Slot& slot, bool park) {
      // Held until the contexts have moved, so that an EvictIdleIf either
      // revokes the slot first or finds its contexts in the reserve after:
      // parked between the two, stale ones would hold the budget.
      std::lock_guard<std::mutex> lock(slots_mutex);
      slots.erase(std::find(slots.begin(), slots.end(), &slot));
      // No revoker can reach the slot now, so its claim stays as read.
      if (slot.claim.revoked()) {
        FreeRevoked(slot);
      } else {
        for (Context* context : slot.idle) {
          if (park) {
            Park(slot.key, context);
          } else {
            DestroyIdle(context);
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
      std::lock_guard<std::mutex> lock(slots_mutex);
      // Checkouts of the matching keys from before the bump are stale;
      // later ones asked for the key knowing the change (raw mode may name
      // a level other than the configured one), so they pool as usual.
      const uint64_t stale = generation.fetch_add(1, std::memory_order_acq_rel);
      if (retirements.size() == kRetirementsKept) {
        retirements_dropped = true;
        newest_dropped = retirements.front().stale;
        retirements.pop_front();
      }
      retirements.push_back({stale, pred});
      for (Slot* slot : slots) {
        if (!pred(static_cast<const Key&>(slot->key))) continue;
        // Before Revoke, whose write the owner reads before it could pool
        // a stale checkout.
        slot->stale_in.store(stale, std::memory_order_relaxed);
        const RevocableClaim::Held held = slot->claim.Revoke();
        budget->Release(held.bytes);
        revoked += held.contexts;
      }
      ThreadCaches::CountRevocation();
      return revoked;
    }

    void Destroy(Context* context) {
      Policy::Destroy(context);
      destroyed.fetch_add(1, std::memory_order_release);  // see Stats()
    }

    // Takes an idle context of `bytes` out of the books.
    // The pool's own counters first: once the budget is released another
    // thread may claim it and count the bytes as its own.
    void Unpool(size_t bytes) {
      pooled_bytes.fetch_sub(bytes, std::memory_order_relaxed);
      pooled.fetch_sub(1, std::memory_order_relaxed);
      budget->Release(bytes);
    }

    void DestroyIdle(Context* context) {
      Unpool(Policy::Bytes(*context));
      Destroy(context);
    }

    // For an idle context already out of the books, or a stale checkout.
    void Evict(Context* context) {
      evicted.fetch_add(1, std::memory_order_relaxed);
      Destroy(context);
    }

    // An exiting thread's idle context; it stays counted as pooled.
    void Park(const Key& key, Context* context) {
      const size_t bytes = Policy::Bytes(*context);
      {
        std::lock_guard<std::mutex> lock(reserve_mutex);
        if (!reserve_closed) {
          Bucket* bucket = FindBucket(key);
          if (bucket == nullptr) {
            buckets.push_back(Bucket{key, {}});
            bucket = &buckets.back();
          }
          bucket->parked.push_back(Parked{context, bytes, next_sequence++});
          bucket->bytes += bytes;
          reserve_size.fetch_add(1, std::memory_order_relaxed);
          return;
        }
      }
      DestroyIdle(context);
    }

    // An idle context for `key` from the reserve, or null. Takes the lock
    // only when the reserve is not empty.
    Context* Adopt(const Key& key) {
      if (reserve_size.load(std::memory_order_relaxed) == 0) return nullptr;
      std::lock_guard<std::mutex> lock(reserve_mutex);
      Bucket* bucket = FindBucket(key);
      if (bucket == nullptr) return nullptr;
      // The most recently parked: the likeliest to be still in cache and
      // resident, and taking from the back leaves the oldest at the front,
      // the end that eviction frees first.
      const Parked newest = bucket->parked.back();
      bucket->parked.pop_back();
      bucket->bytes -= newest.bytes;
      reserve_size.fetch_sub(1, std::memory_order_relaxed);
      if (bucket->parked.empty()) EraseBucket(bucket);
      return newest.context;
    }

    // Frees the reserve's contexts of keys other than `key`, oldest parked
    // first, until `bytes` can be claimed from the budget, and claims them.
    // The returning key's own are spared: freeing one to pool another gains
    // nothing. False, freeing nothing, if all the others together would not
    // make the room.
    bool EvictForRoom(const Key& key, size_t bytes) {
      if (reserve_size.load(std::memory_order_relaxed) == 0) return false;
      std::vector<Context*> unpooled;
      bool claimed = false;
      {
        std::lock_guard<std::mutex> lock(reserve_mutex);
        size_t others_bytes = 0;
        for (const Bucket& bucket : buckets) {
          if (!(bucket.key == key)) others_bytes += bucket.bytes;
        }
        if (others_bytes + budget->available() < bytes) return false;
        while (!(claimed = budget->Claim(bytes))) {
          Bucket* oldest = nullptr;
          for (Bucket& bucket : buckets) {
            if (bucket.key == key) continue;
            if (oldest == nullptr || bucket.parked.front().sequence <
                                         oldest->parked.front().sequence) {
              oldest = &bucket;
            }
          }
          if (oldest == nullptr) break;
          const Parked parked = oldest->parked.front();
          oldest->parked.pop_front();
          oldest->bytes -= parked.bytes;
          reserve_size.fetch_sub(1, std::memory_order_relaxed);
          if (oldest->parked.empty()) EraseBucket(oldest);
          Unpool(parked.bytes);  // now, so that the next Claim can have it
          unpooled.push_back(parked.context);
        }
      }
      for (Context* context : unpooled) Evict(context);
      return claimed;
    }

    template <typename Pred>
    size_t EvictIf(Pred& pred) {
      std::vector<Context*> unpooled;
      {
        std::lock_guard<std::mutex> lock(reserve_mutex);
        for (size_t i = 0; i < buckets.size();) {
          Bucket& bucket = buckets[i];
          if (!pred(static_cast<const Key&>(bucket.key))) {
            ++i;
            continue;
          }
          for (const Parked& parked : bucket.parked) {
            Unpool(parked.bytes);
            unpooled.push_back(parked.context);
          }
          reserve_size.fetch_sub(bucket.parked.size(),
                                 std::memory_order_relaxed);
          EraseBucket(&bucket);  // moves the last bucket to `i`
        }
      }
      for (Context* context : unpooled) Evict(context);
      return unpooled.size();
    }

    // The pool is gone: destroys the reserve and whatever is parked later.
    void CloseReserve() {
      std::vector<Bucket> parked;
      {
        std::lock_guard<std::mutex> lock(reserve_mutex);
        reserve_closed = true;
        parked.swap(buckets);
        reserve_size.store(0, std::memory_order_relaxed);
      }
      for (Bucket& bucket : parked) {
        for (const Parked& entry : bucket.parked) {
          Unpool(entry.bytes);
          Destroy(entry.context);
        }
      }
    }

    struct Parked {
      Context* context;
      size_t bytes;       // Policy::Bytes, fixed while it is idle
      uint64_t sequence;  // when it was parked, across all keys
    };

    // The reserve's contexts of one key, oldest parked first. Keys are few
    // (one per backend, format and level in use), so finding a bucket, or
    // the one whose front was parked first, by scanning them is cheap
    // whatever the number of contexts parked.
    struct Bucket {
      Key key;
      std::deque<Parked> parked;
      size_t bytes = 0;  // of `parked`
    };

    Bucket* FindBucket(const Key& key) {
      for (Bucket& bucket : buckets) {
        if (bucket.key == key) return &bucket;
      }
      return nullptr;
    }

    // Drops an empty bucket, so that scans see only keys with contexts.
    void EraseBucket(Bucket* bucket) {
      if (bucket != &buckets.back()) *bucket = std::move(buckets.back());
      buckets.pop_back();
    }

    const std::shared_ptr<IdleBudget> budget;
    // Advanced by each EvictIdleIf. From 1, so that no checkout is older
    // than a slot's initial stale_in.
    std::atomic<uint64_t> generation{1};
    std::atomic<uint64_t> created{0};
    std::atomic<uint64_t> reused{0};
    std::atomic<uint64_t> destroyed{0};
    std::atomic<uint64_t> discarded{0};
    std::atomic<uint64_t> rejected{0};
    std::atomic<uint64_t> evicted{0};
    std::atomic<uint64_t> pooled{0};
    std::atomic<uint64_t> pooled_bytes{0};

    std::mutex reserve_mutex;
    std::vector<Bucket> buckets;  // guarded; in no particular order
    uint64_t next_sequence = 0;   // guarded
    bool reserve_closed = false;  // guarded
    std::atomic<uint64_t> reserve_size{0};

    std::mutex slots_mutex;
    std::vector<Slot*> slots;  // guarded; living threads' slots of this pool
    // The last EvictIdleIf predicates, with the generation each ended
    // (Retired); guarded.
    struct Retirement {
      uint64_t stale;
      std::function<bool(const Key&)> pred;
    };
    static constexpr size_t kRetirementsKept = 8;
    std::deque<Retirement> retirements;
    bool retirements_dropped = false;  // guarded
    uint64_t newest_dropped = 0;       // guarded
  };

  // This thread's idle contexts, for every pool of this Policy type.
  class LocalCache {
   public:
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
        slot->shared->Retire(*slot, /*park=*/true);
      }
    }

    LocalCache(const LocalCache&) = delete;
    LocalCache& operator=(const LocalCache&) = delete;

    // This thread's slot for `key` in the pool of `shared`. Once per
    // revocation anywhere in the process, first frees what was revoked in
    // every cache of this thread, of any pool and key: the thread may never
    // ask for those keys, nor use that pool, again.
    Slot& SlotFor(const std::shared_ptr<Shared>& shared, const Key& key) {
      if (listed_) {
        ThreadCaches::TidyIfRevoked();
      } else if (ThreadCaches::Revoked(&seen_)) {
        TidyAll(this);
      }
      Slot* found = nullptr;
      for (const std::unique_ptr<Slot>& slot : slots_) {
        if (slot->shared.get() == shared.get() && slot->key == key) {
          found = slot.get();
          break;
        }
      }
      if (found == nullptr) {
        slots_.push_back(std::make_unique<Slot>(shared, key));
        found = slots_.back().get();
        shared->Register(found);
      }
      return *found;
    }

    void DropPool(Shared* shared) {
      auto owned_by_pool = [shared](const std::unique_ptr<Slot>& slot) {
        return slot->shared.get() == shared;
      };
      for (const std::unique_ptr<Slot>& slot : slots_) {
        if (owned_by_pool(slot)) shared->Retire(*slot, /*park=*/false);
      }
      slots_.erase(std::remove_if(slots_.begin(), slots_.end(), owned_by_pool),
                   slots_.end());
    }

   private:
    static void TidyAll(void* cache) {
      for (const std::unique_ptr<Slot>& slot :
           static_cast<LocalCache*>(cache)->slots_) {
        slot->shared->Tidy(*slot);
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

  void Release(const Key& key, uint64_t generation, Context* context) {
    if (!Policy::Reset(context)) {
      shared_->discarded.fetch_add(1, std::memory_order_relaxed);
      shared_->Destroy(context);
      return;
    }
    LocalCache* cache = LocalCache::Get();
    if (cache == nullptr) {  // this thread is exiting
      shared_->Destroy(context);
      return;
    }
    Slot& slot = cache->SlotFor(shared_, key);
    shared_->Tidy(slot);
    if (Shared::Stale(slot, generation) || shared_->Retired(key, generation)) {
      shared_->Evict(context);
      return;
    }
    size_t bytes = Policy::Bytes(*context);
    const size_t max_idle =
        std::min<size_t>(shared_->budget->max_idle_per_thread_per_key(),
                         RevocableClaim::kMaxContexts);
    // With the byte cap full, exited threads' contexts of other keys give
    // way: otherwise contexts of a key nobody asks for any more (after a
    // level change, say) would keep the cap full, and every context of the
    // keys in use would be destroyed on return. Then what the context keeps
    // between uses gives way, before the context itself.
    const auto claim = [&] {
      return shared_->budget->Claim(bytes) || shared_->EvictForRoom(key, bytes);
    };
    if (slot.idle.size() >= max_idle ||
        !(claim() || (Policy::Shrink(context) &&
                      (bytes = Policy::Bytes(*context), claim())))) {
      shared_->rejected.fetch_add(1, std::memory_order_relaxed);
      shared_->Destroy(context);
      return;
    }
    shared_->pooled_bytes.fetch_add(bytes, std::memory_order_relaxed);
    shared_->pooled.fetch_add(1, std::memory_order_relaxed);
    while (!slot.claim.Add(bytes)) {  // revoked since Tidy
      shared_->Tidy(slot);
      if (Shared::Stale(slot, generation)) {
        shared_->Unpool(bytes);
        shared_->Evict(context);
        return;
      }
    }
    slot.idle.push_back(context);
  }

  std::shared_ptr<Shared> shared_;
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_CONTEXT_POOL_H_
