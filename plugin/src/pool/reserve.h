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
  bool EvictForRoom(const Key& key, size_t bytes) {
    if (size_.load(std::memory_order_relaxed) == 0) return false;
    std::vector<Context*> unpooled;
    bool claimed = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      size_t others_bytes = 0;
      for (const Bucket& bucket : buckets_) {
        if (!(bucket.key == key)) others_bytes += bucket.bytes;
      }
      if (others_bytes + books_.budget->available() < bytes) return false;
      while (!(claimed = books_.budget->Claim(bytes))) {
        Bucket* oldest = nullptr;
        for (Bucket& bucket : buckets_) {
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
        size_.fetch_sub(1, std::memory_order_relaxed);
        if (oldest->parked.empty()) EraseBucket(oldest);
        books_.Unpool(parked.bytes);  // now, so that the next Claim can have it
        unpooled.push_back(parked.context);
      }
    }
    for (Context* context : unpooled) books_.Evict(context);
    return claimed;
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
