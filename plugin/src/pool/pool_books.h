// The pools' accounts: the budget that pools claim their idle contexts'
// bytes from, and each pool's books, so that Stats() reads one place.

#ifndef POOLED_GZIP_SRC_POOL_POOL_BOOKS_H_
#define POOLED_GZIP_SRC_POOL_POOL_BOOKS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip {
namespace internal {

// No defaults here: the pools' user chooses them (codec/settings.h takes
// them from Options{}).
struct PoolLimits {
  size_t max_idle_per_thread_per_key;
  size_t max_pooled_bytes;
};

class IdleBudget {
 public:
  explicit IdleBudget(const PoolLimits& limits) { SetLimits(limits); }

  void SetLimits(const PoolLimits& limits) {
    max_idle_per_thread_per_key_.store(limits.max_idle_per_thread_per_key,
                                       std::memory_order_relaxed);
    max_pooled_bytes_.store(limits.max_pooled_bytes, std::memory_order_relaxed);
  }

  PoolLimits limits() const {
    return {max_idle_per_thread_per_key_.load(std::memory_order_relaxed),
            max_pooled_bytes_.load(std::memory_order_relaxed)};
  }

  // One counter for every pool sharing the budget, so exact at any moment,
  // and never above the cap it had when the last context was claimed.
  uint64_t pooled_bytes() const {
    return pooled_bytes_.load(std::memory_order_relaxed);
  }

  // Bytes a Claim could have now; others may take them first.
  size_t available() const {
    const uint64_t cap = max_pooled_bytes_.load(std::memory_order_relaxed);
    const uint64_t pooled = pooled_bytes_.load(std::memory_order_relaxed);
    return pooled < cap ? cap - pooled : 0;
  }

  // False, claiming nothing, if `bytes` would pass the cap.
  bool Claim(size_t bytes) {
    const uint64_t cap = max_pooled_bytes_.load(std::memory_order_relaxed);
    uint64_t current = pooled_bytes_.load(std::memory_order_relaxed);
    do {
      if (current + bytes > cap) return false;
    } while (!pooled_bytes_.compare_exchange_weak(current, current + bytes,
                                                  std::memory_order_relaxed));
    return true;
  }

  // Claims `bytes` in place of `held` bytes claimed before, as if those were
  // given back first: false, claiming nothing, if that would pass the cap.
  // `held` stays claimed; the caller gives back what `bytes` does not use.
  bool ClaimInPlaceOf(size_t held, size_t bytes) {
    if (bytes > held) return Claim(bytes - held);
    const uint64_t cap = max_pooled_bytes_.load(std::memory_order_relaxed);
    return pooled_bytes_.load(std::memory_order_relaxed) - held + bytes <= cap;
  }

  void Release(size_t bytes) {
    pooled_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
  }

 private:
  std::atomic<size_t> max_idle_per_thread_per_key_{0};
  std::atomic<size_t> max_pooled_bytes_{0};
  std::atomic<uint64_t> pooled_bytes_{0};
};

// What one pool created, reused, pooled and destroyed.
template <typename Policy>
struct PoolBooks {
  using Context = typename Policy::Context;

  explicit PoolBooks(std::shared_ptr<IdleBudget> idle_budget)
      : budget(std::move(idle_budget)) {}

  void Destroy(Context* context) {
    Policy::Destroy(context);
    destroyed.fetch_add(1, std::memory_order_release);  // see Stats()
  }

  // A context whose `bytes` were claimed from the budget, now idle.
  void Pool(size_t bytes) {
    pooled_bytes.fetch_add(bytes, std::memory_order_relaxed);
    pooled.fetch_add(1, std::memory_order_relaxed);
  }

  // A revoked context: its revoker gave the budget its bytes back already.
  void UnpoolRevoked(size_t bytes) {
    pooled_bytes.fetch_sub(bytes, std::memory_order_relaxed);
    pooled.fetch_sub(1, std::memory_order_relaxed);
  }

  // Own counters first: once released, another thread may claim the bytes.
  void Unpool(size_t bytes) {
    UnpoolRevoked(bytes);
    budget->Release(bytes);
  }

  void DestroyIdle(Context* context) {
    Unpool(Policy::Bytes(*context));
    Destroy(context);
  }

  // An idle context already out of the books, or a stale checkout.
  void Evict(Context* context) {
    evicted.fetch_add(1, std::memory_order_relaxed);
    Destroy(context);
  }

  PoolCounters Stats(uint64_t in_reserve) const {
    PoolCounters stats;
    // `destroyed` first, pairing with Destroy's release: `live` cannot wrap.
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
