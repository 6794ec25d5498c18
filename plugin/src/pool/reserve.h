// Idle contexts of threads that exited, kept per key for whichever thread
// asks next, so that the threads a server retires and starts do not each
// pay for new contexts. A context leaves the books as it leaves the
// reserve, under the lock, so that the room it frees is claimable at once.

#ifndef POOLED_GZIP_SRC_POOL_RESERVE_H_
#define POOLED_GZIP_SRC_POOL_RESERVE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "pool/pool_books.h"

namespace pooled_gzip {
namespace internal {

template <typename Policy>
class Reserve {
 public:
  using Context = typename Policy::Context;
  using Key = typename Policy::Key;

  explicit Reserve(PoolBooks<Policy>& books) : books_(books) {}

  Reserve(const Reserve&) = delete;
  Reserve& operator=(const Reserve&) = delete;

  uint64_t size() const { return size_.load(std::memory_order_relaxed); }

  // For the pool's fork handlers.
  std::mutex& mutex() { return mutex_; }

  // An exiting thread's idle context, keeping its claim.
  void Park(const Key& key, Context* context) {
    const size_t bytes = Policy::Bytes(*context);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!closed_) {
        Bucket* bucket = FindBucket(key);
        if (bucket == nullptr) {
          buckets_.push_back(Bucket{key, {}});
          bucket = &buckets_.back();
        }
        bucket->parked.push_back(Parked{context, bytes, next_sequence_++});
        bucket->bytes += bytes;
        size_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    books_.DestroyIdle(context);
  }

  // A context for `key`, out of the books, or null. No lock when empty.
  Context* Adopt(const Key& key) {
    if (size_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    Bucket* bucket = FindBucket(key);
    if (bucket == nullptr) return nullptr;
    // The newest: the likeliest to be cached and resident.
    const Parked newest = bucket->parked.back();
    bucket->parked.pop_back();
    bucket->bytes -= newest.bytes;
    size_.fetch_sub(1, std::memory_order_relaxed);
    if (bucket->parked.empty()) EraseBucket(bucket);
    books_.Unpool(newest.bytes);
    return newest.context;
  }

  // Frees contexts of keys other than `key` (freeing one of `key` to pool
  // another gains nothing), oldest first, until `bytes` can be claimed, and
  // claims them. False, freeing nothing, if they could not make the room.
  // The contexts chosen stay parked, their bytes claimed, until the claim
  // in their place succeeds: freed first, their room could be taken by
  // another claimer or still fall short of a lowered cap.
  bool EvictForRoom(const Key& key, size_t bytes) {
    if (size_.load(std::memory_order_relaxed) == 0) return false;
    std::vector<Context*> unpooled;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // How many of each bucket's oldest contexts are chosen.
      std::vector<size_t> chosen(buckets_.size(), 0);
      size_t chosen_bytes = 0;
      while (!books_.budget->ClaimInPlaceOf(chosen_bytes, bytes)) {
        const size_t oldest = OldestUnchosen(key, chosen);
        if (oldest == buckets_.size()) return false;
        chosen_bytes += buckets_[oldest].parked[chosen[oldest]].bytes;
        ++chosen[oldest];
      }
      // Backwards, as EraseBucket moves the last bucket into the erased one.
      for (size_t i = buckets_.size(); i-- > 0;) {
        Bucket& bucket = buckets_[i];
        for (size_t n = 0; n < chosen[i]; ++n) {
          const Parked parked = bucket.parked.front();
          bucket.parked.pop_front();
          bucket.bytes -= parked.bytes;
          // Its claim is now the returning context's: own counters only.
          books_.UnpoolRevoked(parked.bytes);
          unpooled.push_back(parked.context);
        }
        if (bucket.parked.empty()) EraseBucket(&bucket);
      }
      size_.fetch_sub(unpooled.size(), std::memory_order_relaxed);
      if (chosen_bytes > bytes) books_.budget->Release(chosen_bytes - bytes);
    }
    for (Context* context : unpooled) books_.Evict(context);
    return true;
  }

  // Frees contexts, oldest first, while the budget holds more than its
  // byte cap; returns how many.
  size_t EvictOverCap() {
    if (size_.load(std::memory_order_relaxed) == 0) return 0;
    std::vector<Context*> unpooled;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (books_.budget->pooled_bytes() >
                 books_.budget->limits().max_pooled_bytes &&
             UnpoolOldest(&unpooled)) {
      }
    }
    for (Context* context : unpooled) books_.Evict(context);
    return unpooled.size();
  }

  template <typename Pred>
  size_t EvictIf(Pred& pred) {
    std::vector<Context*> unpooled;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 0; i < buckets_.size();) {
        Bucket& bucket = buckets_[i];
        if (!pred(static_cast<const Key&>(bucket.key))) {
          ++i;
          continue;
        }
        for (const Parked& parked : bucket.parked) {
          books_.Unpool(parked.bytes);
          unpooled.push_back(parked.context);
        }
        size_.fetch_sub(bucket.parked.size(), std::memory_order_relaxed);
        EraseBucket(&bucket);  // moves the last bucket to `i`
      }
    }
    for (Context* context : unpooled) books_.Evict(context);
    return unpooled.size();
  }

  // The pool is gone: destroys what is parked, now and later.
  void Close() {
    std::vector<Bucket> parked;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
      parked.swap(buckets_);
      size_.store(0, std::memory_order_relaxed);
    }
    for (Bucket& bucket : parked) {
      for (const Parked& entry : bucket.parked) {
        books_.Unpool(entry.bytes);
        books_.Destroy(entry.context);
      }
    }
  }

 private:
  struct Parked {
    Context* context;
    size_t bytes;       // Policy::Bytes, fixed while it is idle
    uint64_t sequence;  // when it was parked, across all keys
  };

  // Oldest first. Keys are few, so scanning the buckets is cheap.
  struct Bucket {
    Key key;
    std::deque<Parked> parked;
    size_t bytes = 0;  // of `parked`
  };

  Bucket* FindBucket(const Key& key) {
    for (Bucket& bucket : buckets_) {
      if (bucket.key == key) return &bucket;
    }
    return nullptr;
  }

  // The bucket, not of `key`, whose oldest context not yet `chosen` is the
  // oldest; buckets_.size() if none is left.
  size_t OldestUnchosen(const Key& key, const std::vector<size_t>& chosen) {
    size_t oldest = buckets_.size();
    for (size_t i = 0; i < buckets_.size(); ++i) {
      const Bucket& bucket = buckets_[i];
      if (bucket.key == key || chosen[i] == bucket.parked.size()) continue;
      if (oldest == buckets_.size() ||
          bucket.parked[chosen[i]].sequence <
              buckets_[oldest].parked[chosen[oldest]].sequence) {
        oldest = i;
      }
    }
    return oldest;
  }

  // Moves the oldest context out of the reserve and the books (now, so that
  // its bytes are free at once) into `unpooled`; false if there is none.
  // Under the lock.
  bool UnpoolOldest(std::vector<Context*>* unpooled) {
    Bucket* oldest = nullptr;
    for (Bucket& bucket : buckets_) {
      if (oldest == nullptr ||
          bucket.parked.front().sequence < oldest->parked.front().sequence) {
        oldest = &bucket;
      }
    }
    if (oldest == nullptr) return false;
    const Parked parked = oldest->parked.front();
    oldest->parked.pop_front();
    oldest->bytes -= parked.bytes;
    size_.fetch_sub(1, std::memory_order_relaxed);
    if (oldest->parked.empty()) EraseBucket(oldest);
    books_.Unpool(parked.bytes);
    unpooled->push_back(parked.context);
    return true;
  }

  // Drops an empty bucket, so that scans see only keys with contexts.
  void EraseBucket(Bucket* bucket) {
    if (bucket != &buckets_.back()) *bucket = std::move(buckets_.back());
    buckets_.pop_back();
  }

  PoolBooks<Policy>& books_;
  std::mutex mutex_;
  std::vector<Bucket> buckets_;  // guarded; in no particular order
  uint64_t next_sequence_ = 0;   // guarded
  bool closed_ = false;          // guarded
  std::atomic<uint64_t> size_{0};
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_RESERVE_H_
