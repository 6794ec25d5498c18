// The idle budget: the caps of one or more pools, and the bytes their idle
// contexts hold against them.
//
// One counter, pooled_bytes, is claimed by a context entering a thread's
// free list and released when it is checked out again or freed, or, for a
// whole free list at once, by EvictIdleIf's revoker (the revoked contexts
// stay counted pooled, in the pool's books, until their thread frees
// them). A context parked in the reserve keeps the claim it had.
// pool/context_pool.h says who may claim and release, and when.

#ifndef POOLED_GZIP_SRC_POOL_IDLE_BUDGET_H_
#define POOLED_GZIP_SRC_POOL_IDLE_BUDGET_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

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

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_IDLE_BUDGET_H_
