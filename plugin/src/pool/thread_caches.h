// Reaches every pool cache of the calling thread, whatever its pool and
// Policy, when any pool of the process has revoked contexts.
//
// A revocation (ThreadLocalPool::EvictIdleIf) leaves revoked contexts in
// living threads' caches for their threads to free. A thread frees them on
// its next use of any pool: a thread that only ever uses the reader pool
// after a Configure that revoked its writers would otherwise hold those
// writers' heap for as long as it lives.

#ifndef POOLED_GZIP_SRC_POOL_THREAD_CACHES_H_
#define POOLED_GZIP_SRC_POOL_THREAD_CACHES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace pooled_gzip {
namespace internal {

class ThreadCaches {
 public:
  using TidyFunction = void (*)(void* cache);

  // Counts a revocation by any pool. Called after the revoked claims are
  // marked, so that a thread that sees the new count sees them too.
  static void CountRevocation() {
    Revocations().fetch_add(1, std::memory_order_release);
  }

  // Registers this thread's `cache`, to be tidied by `tidy` on the thread.
  // False when the thread has no room left (more Policy types than any
  // build of the library has): the cache then tidies itself (Revoked).
  static bool Add(void* cache, TidyFunction tidy) {
    List& list = Local();
    if (list.size == kMaxCaches) return false;
    list.entries[list.size++] = {cache, tidy};
    return true;
  }

  static void Remove(void* cache) {
    List& list = Local();
    for (size_t i = 0; i < list.size; ++i) {
      if (list.entries[i].cache != cache) continue;
      list.entries[i] = list.entries[--list.size];
      return;
    }
  }

  // Tidies every registered cache of this thread if a pool revoked since
  // the thread last looked: one relaxed comparison otherwise.
  static void TidyIfRevoked() {
    List& list = Local();
    const uint64_t now = Revocations().load(std::memory_order_acquire);
    if (list.seen == now) return;
    list.seen = now;
    for (size_t i = 0; i < list.size; ++i) {
      list.entries[i].tidy(list.entries[i].cache);
    }
  }

  // For a cache that could not register: true once per new revocation
  // count, as last seen in `*seen`.
  static bool Revoked(uint64_t* seen) {
    const uint64_t now = Revocations().load(std::memory_order_acquire);
    if (*seen == now) return false;
    *seen = now;
    return true;
  }

 private:
  // One per Policy type in use on the thread; the library has two.
  static constexpr size_t kMaxCaches = 8;

  struct Entry {
    void* cache;
    TidyFunction tidy;
  };
  // Trivially destructible, so that it is still there for caches destroyed
  // late in thread exit.
  struct List {
    Entry entries[kMaxCaches];
    size_t size;
    uint64_t seen;  // Revocations() when the thread last tidied
  };

  static std::atomic<uint64_t>& Revocations() {
    static std::atomic<uint64_t> revocations{0};
    return revocations;
  }

  static List& Local() {
    static thread_local List list{};
    return list;
  }
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_THREAD_CACHES_H_
