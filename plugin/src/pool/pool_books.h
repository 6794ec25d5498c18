// One pool's books: what it created, reused, pooled and destroyed, and the
// idle budget it claims from. Every part of the pool (the threads' free
// lists, the reserve) accounts here, so Stats() reads one place.

#ifndef POOLED_GZIP_SRC_POOL_POOL_BOOKS_H_
#define POOLED_GZIP_SRC_POOL_POOL_BOOKS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "pool/idle_budget.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip {
namespace internal {

template <typename Policy>
struct PoolBooks {
  using Context = typename Policy::Context;

  explicit PoolBooks(std::shared_ptr<IdleBudget> idle_budget)
      : budget(std::move(idle_budget)) {}

  void Destroy(Context* context) {
    Policy::Destroy(context);
    destroyed.fetch_add(1, std::memory_order_release);  // see Stats()
  }

  // Counts a context whose `bytes` were claimed from the budget as idle.
  void Pool(size_t bytes) {
    pooled_bytes.fetch_add(bytes, std::memory_order_relaxed);
    pooled.fetch_add(1, std::memory_order_relaxed);
  }

  // Takes an idle context of `bytes` out of the books.
  // The pool's own counters first: once the budget is released another
  // thread may claim it and count the bytes as its own.
  void Unpool(size_t bytes) {
    pooled_bytes.fetch_sub(bytes, std::memory_order_relaxed);
    pooled.fetch_sub(1, std::memory_order_relaxed);
    budget->Release(bytes);
  }

  // A revoked context: its revoker gave the budget its bytes back already.
  void UnpoolRevoked(size_t bytes) {
    pooled_bytes.fetch_sub(bytes, std::memory_order_relaxed);
    pooled.fetch_sub(1, std::memory_order_relaxed);
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

  PoolCounters Stats(uint64_t in_reserve) const {
    PoolCounters stats;
    // `destroyed` first: every context is counted created before it can be
    // counted destroyed, and the acquire pairs with Destroy's release, so
    // `created` read after it is never behind. Read the other way round,
    // traffic in between could make `live` wrap.
    stats.destroyed = destroyed.load(std::memory_order_acquire);
    stats.created = created.load(std::memory_order_relaxed);
    stats.reused = reused.load(std::memory_order_relaxed);
    stats.discarded = discarded.load(std::memory_order_relaxed);
    stats.rejected_by_caps = rejected.load(std::memory_order_relaxed);
    stats.evicted = evicted.load(std::memory_order_relaxed);
    stats.pooled = pooled.load(std::memory_order_relaxed);
    stats.in_reserve = in_reserve;
    stats.pooled_bytes = pooled_bytes.load(std::memory_order_relaxed);
    stats.live = stats.created > stats.destroyed
                     ? stats.created - stats.destroyed
                     : 0;  // a gauge, so never a wrapped count
    return stats;
  }

  const std::shared_ptr<IdleBudget> budget;
  std::atomic<uint64_t> created{0};
  std::atomic<uint64_t> reused{0};
  std::atomic<uint64_t> destroyed{0};
  std::atomic<uint64_t> discarded{0};
  std::atomic<uint64_t> rejected{0};
  std::atomic<uint64_t> evicted{0};
  std::atomic<uint64_t> pooled{0};
  std::atomic<uint64_t> pooled_bytes{0};
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_POOL_BOOKS_H_
