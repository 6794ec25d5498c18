// Layer 1: ThreadLocalPool with a fake, counting policy. No zlib here.

#include "pool/context_pool.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::internal {
namespace {

constexpr size_t kContextBytes = 100;
// FakePolicy::Create fails for this key.
constexpr int kUncreatableKey = -1;

// A one-shot gate: threads Wait() until the test Open()s it. No sleeps.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Counts arrivals; the test waits until `n` threads have arrived.
class Counter {
 public:
  void Arrive() {
    std::lock_guard<std::mutex> lock(mu_);
    ++count_;
    cv_.notify_all();
  }
  void WaitFor(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this, n] { return count_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

// Stops the thread that next asks a context for its bytes until the test
// lets it go on: the thread that takes the context out of its list asks
// while it holds the list.
struct Pause {
  Counter reached;
  Gate resume;
};

struct FakeContext {
  int key = 0;
  int serial = 0;
  size_t bytes = kContextBytes;  // what Bytes() reports; a test may grow it
  size_t kept_bytes = 0;         // of those, what Shrink() frees
  bool reset_fails = false;      // Reset() returns false when set
  int resets = 0;
  mutable std::atomic<Pause*> pause_in_bytes{nullptr};  // once, when set
};

// Counts every context alive in the process, across all pools.
std::atomic<int> live_fake_contexts{0};
std::atomic<int> next_serial{0};
// The serial of the context destroyed last, in any pool.
std::atomic<int> last_destroyed_serial{0};

struct FakePolicy {
  using Context = FakeContext;
  using Key = int;
  static FakeContext* Create(const int& key) {
    if (key == kUncreatableKey) return nullptr;
    auto* context = new FakeContext;
    context->key = key;
    context->serial = next_serial.fetch_add(1) + 1;
    live_fake_contexts.fetch_add(1);
    return context;
  }
  static bool Reset(FakeContext* context) {
    ++context->resets;
    return !context->reset_fails;
  }
  static size_t Bytes(const FakeContext& context) {
    if (Pause* pause = context.pause_in_bytes.exchange(nullptr)) {
      pause->reached.Arrive();
      pause->resume.Wait();
    }
    return context.bytes;
  }
  static bool Shrink(FakeContext* context) {
    if (context->kept_bytes == 0) return false;
    context->bytes -= context->kept_bytes;
    context->kept_bytes = 0;
    return true;
  }
  static void Destroy(FakeContext* context) {
    live_fake_contexts.fetch_sub(1);
    last_destroyed_serial.store(context->serial);
    delete context;
  }
};

PoolLimits Limits(size_t max_idle_per_thread_per_key, size_t max_pooled_bytes) {
  PoolLimits limits;
  limits.max_idle_per_thread_per_key = max_idle_per_thread_per_key;
  limits.max_pooled_bytes = max_pooled_bytes;
  return limits;
}

// The pool has no default limits; these are the tests' own, room for what
// a case keeps unless it sets its own.
PoolLimits TestLimits() { return Limits(2, size_t{64} << 20); }

class FakePool : public ThreadLocalPool<FakePolicy> {
 public:
  using ThreadLocalPool::ThreadLocalPool;
  FakePool() : ThreadLocalPool(TestLimits()) {}
};

// The identities pool_stats.h promises for a pool at rest.
void ExpectConsistent(const PoolCounters& stats) {
  EXPECT_EQ(stats.live, stats.created - stats.destroyed);
  EXPECT_GE(stats.destroyed,
            stats.discarded + stats.rejected_by_caps + stats.evicted);
  EXPECT_LE(stats.pooled, stats.live);
}

// Runs one thread per entry of `keys_per_thread`, each checking out a context
// of each of its keys. They hold their checkouts until all have them, so
// that each creates its own, then exit one after another, so that the
// reserve receives their contexts in that order. Returns the contexts'
// serials, in the same shape.
std::vector<std::vector<int>> ParkInOrder(
    FakePool& pool, const std::vector<std::vector<int>>& keys_per_thread) {
  const size_t threads_count = keys_per_thread.size();
  std::vector<std::vector<int>> serials(threads_count);
  std::vector<std::unique_ptr<Gate>> exit;
  for (size_t t = 0; t < threads_count; ++t) {
    exit.push_back(std::make_unique<Gate>());
  }
  Counter acquired;
  std::vector<std::thread> threads;
  for (size_t t = 0; t < threads_count; ++t) {
    threads.emplace_back([&, t] {
      std::vector<FakePool::Handle> handles;
      for (int key : keys_per_thread[t]) {
        handles.push_back(pool.Acquire(key));
        serials[t].push_back(handles.back()->serial);
      }
      acquired.Arrive();
      exit[t]->Wait();
    });
  }
  acquired.WaitFor(static_cast<int>(threads_count));
  for (size_t t = 0; t < threads_count; ++t) {
    exit[t]->Open();
    threads[t].join();  // parks its contexts before the next thread exits
  }
  return serials;
}

TEST(ContextPoolTest, ReusesContextOnSameThread) {
  FakePool pool;
  constexpr int kRounds = 10;
  FakeContext* first = nullptr;
  for (int i = 0; i < kRounds; ++i) {
    FakePool::Handle handle = pool.Acquire(7);
    ASSERT_NE(handle, nullptr);
    if (first == nullptr) first = handle.get();
    EXPECT_EQ(handle.get(), first) << "round " << i;
    EXPECT_EQ(handle->key, 7);
  }
  const PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.created, 1u);
  EXPECT_EQ(stats.reused, kRounds - 1u);
  EXPECT_EQ(stats.destroyed, 0u);
  EXPECT_EQ(stats.pooled, 1u);
  EXPECT_EQ(stats.pooled_bytes, kContextBytes);
  EXPECT_EQ(stats.live, 1u);
  // Every return went through Reset.
  FakePool::Handle handle = pool.Acquire(7);
  EXPECT_EQ(handle->resets, kRounds);
}

TEST(ContextPoolTest, AcquireTakesContextOutOfThePool) {
  FakePool pool;
  { FakePool::Handle warm = pool.Acquire(1); }
  ASSERT_EQ(pool.Stats().pooled, 1u);
  FakePool::Handle a = pool.Acquire(1);
  EXPECT_EQ(pool.Stats().pooled, 0u);
  EXPECT_EQ(pool.Stats().pooled_bytes, 0u);
  // The one idle context is checked out, so a second checkout is new.
  FakePool::Handle b = pool.Acquire(1);
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(pool.Stats().created, 2u);
  EXPECT_EQ(pool.Stats().reused, 1u);
}

TEST(ContextPoolTest, CapsIdleContextsPerThreadPerKey) {
  FakePool pool(Limits(2, size_t{1} << 30));
  {
    FakePool::Handle a = pool.Acquire(1);
    FakePool::Handle b = pool.Acquire(1);
    FakePool::Handle c = pool.Acquire(1);
    ASSERT_NE(c, nullptr);
  }
  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.created, 3u);
  EXPECT_EQ(stats.rejected_by_caps, 1u);
  EXPECT_EQ(stats.destroyed, 1u);
  EXPECT_EQ(stats.discarded, 0u);
  EXPECT_EQ(stats.pooled, 2u);
  EXPECT_EQ(stats.pooled_bytes, 2 * kContextBytes);

  // The cap is per key: another key has room of its own.
  {
    FakePool::Handle a = pool.Acquire(2);
    FakePool::Handle b = pool.Acquire(2);
  }
  stats = pool.Stats();
  EXPECT_EQ(stats.rejected_by_caps, 1u);
  EXPECT_EQ(stats.pooled, 4u);
  ExpectConsistent(stats);
}

TEST(ContextPoolTest, CapIsPerThread) {
  FakePool pool(Limits(1, size_t{1} << 30));
  { FakePool::Handle here = pool.Acquire(1); }
  std::thread other([&pool] {
    // This thread's free list is empty although the main thread has one.
    FakePool::Handle there = pool.Acquire(1);
    EXPECT_EQ(pool.Stats().created, 2u);
    EXPECT_EQ(pool.Stats().reused, 0u);
  });
  other.join();
  const PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.rejected_by_caps, 0u);
  // Main's context in its list, the other thread's in the reserve.
  EXPECT_EQ(stats.pooled, 2u);
  EXPECT_EQ(stats.in_reserve, 1u);
  EXPECT_EQ(stats.destroyed, 0u);
}

TEST(ContextPoolTest, CapsPooledBytesProcessWide) {
  // Room for two and a half contexts.
  FakePool pool(Limits(10, 2 * kContextBytes + kContextBytes / 2));
  {
    FakePool::Handle a = pool.Acquire(1);
    FakePool::Handle b = pool.Acquire(2);
    FakePool::Handle c = pool.Acquire(3);
  }
  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.created, 3u);
  EXPECT_EQ(stats.pooled, 2u);
  EXPECT_EQ(stats.pooled_bytes, 2 * kContextBytes);
  EXPECT_EQ(stats.rejected_by_caps, 1u);

  // Another thread shares the same byte budget, which is full.
  std::thread other([&pool] { FakePool::Handle there = pool.Acquire(4); });
  other.join();
  stats = pool.Stats();
  EXPECT_EQ(stats.rejected_by_caps, 2u);
  EXPECT_EQ(stats.pooled_bytes, 2 * kContextBytes);
  ExpectConsistent(stats);
}

TEST(ContextPoolTest, ContextThatGrewPastByteCapIsNotPooled) {
  FakePool pool(Limits(10, 1000));
  {
    FakePool::Handle handle = pool.Acquire(1);
    handle->bytes = 1001;  // e.g. a zlib window allocated on first use
  }
  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.pooled, 0u);
  EXPECT_EQ(stats.pooled_bytes, 0u);
  EXPECT_EQ(stats.rejected_by_caps, 1u);

  // Bytes are measured on return and given back on checkout.
  {
    FakePool::Handle handle = pool.Acquire(1);
    handle->bytes = 1000;
  }
  EXPECT_EQ(pool.Stats().pooled_bytes, 1000u);
  {
    FakePool::Handle handle = pool.Acquire(1);
    EXPECT_EQ(pool.Stats().pooled_bytes, 0u);
    handle->bytes = 300;
  }
  stats = pool.Stats();
  EXPECT_EQ(stats.pooled_bytes, 300u);
  EXPECT_EQ(stats.pooled, 1u);
}

// A context that keeps a large message's buffers is pooled with them while
// the byte cap holds them, and without them when it does not: the cap, not
// a fixed size, decides what it keeps.
TEST(ContextPoolTest, KeptBuffersGiveWayToTheByteCap) {
  FakePool pool(Limits(10, 1000));
  {
    FakePool::Handle handle = pool.Acquire(1);
    handle->kept_bytes = 800;
    handle->bytes = kContextBytes + 800;
  }
  EXPECT_EQ(pool.Stats().pooled_bytes, kContextBytes + 800);
  {
    FakePool::Handle handle = pool.Acquire(1);
    EXPECT_EQ(handle->kept_bytes, 800u);  // kept: the next message reuses it
    handle->kept_bytes = 1500;
    handle->bytes = kContextBytes + 1500;
  }
  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.pooled, 1u);
  EXPECT_EQ(stats.pooled_bytes, kContextBytes);
  EXPECT_EQ(stats.rejected_by_caps, 0u);
  {
    FakePool::Handle handle = pool.Acquire(1);
    EXPECT_EQ(handle->kept_bytes, 0u);
  }
  ExpectConsistent(pool.Stats());
}

TEST(ContextPoolTest, DifferentKeysNeverShare) {
  FakePool pool;
  std::set<FakeContext*> seen;
  for (int round = 0; round < 3; ++round) {
    for (int key = 1; key <= 4; ++key) {
      FakePool::Handle handle = pool.Acquire(key);
      ASSERT_NE(handle, nullptr);
      EXPECT_EQ(handle->key, key);
      seen.insert(handle.get());
    }
  }
  EXPECT_EQ(seen.size(), 4u);
  const PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.created, 4u);
  EXPECT_EQ(stats.reused, 8u);
  EXPECT_EQ(stats.pooled, 4u);
}

TEST(ContextPoolTest, PoolsOfTheSamePolicyNeverShare) {
  FakePool first;
  FakePool second;
  FakeContext* from_first = nullptr;
  {
    FakePool::Handle handle = first.Acquire(1);
    from_first = handle.get();
  }
  FakePool::Handle handle = second.Acquire(1);
  EXPECT_NE(handle.get(), from_first);
  EXPECT_EQ(second.Stats().created, 1u);
  EXPECT_EQ(second.Stats().reused, 0u);
  EXPECT_EQ(first.Stats().pooled, 1u);
}

TEST(ContextPoolTest, FailedResetDestroysContext) {
  FakePool pool;
  int serial = 0;
  {
    FakePool::Handle handle = pool.Acquire(1);
    serial = handle->serial;
    handle->reset_fails = true;
  }
  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.discarded, 1u);
  EXPECT_EQ(stats.destroyed, 1u);
  EXPECT_EQ(stats.rejected_by_caps, 0u);
  EXPECT_EQ(stats.pooled, 0u);
  EXPECT_EQ(stats.pooled_bytes, 0u);
  EXPECT_EQ(stats.live, 0u);

  FakePool::Handle next = pool.Acquire(1);
  EXPECT_NE(next->serial, serial);
  EXPECT_EQ(pool.Stats().created, 2u);
  EXPECT_EQ(pool.Stats().reused, 0u);
}

TEST(ContextPoolTest, DiscardDestroysAndNeverReuses) {
  const int live_before = live_fake_contexts.load();
  FakePool pool;
  FakePool::Handle handle = pool.Acquire(1);
  const int serial = handle->serial;
  EXPECT_EQ(live_fake_contexts.load(), live_before + 1);
  pool.Discard(std::move(handle));
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(live_fake_contexts.load(), live_before);

  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.discarded, 1u);
  EXPECT_EQ(stats.destroyed, 1u);
  EXPECT_EQ(stats.pooled, 0u);
  EXPECT_EQ(stats.live, 0u);

  FakePool::Handle next = pool.Acquire(1);
  EXPECT_NE(next->serial, serial);
  stats = pool.Stats();
  EXPECT_EQ(stats.created, 2u);
  EXPECT_EQ(stats.reused, 0u);
}

TEST(ContextPoolTest, DiscardingNullHandleDoesNothing) {
  FakePool pool;
  pool.Discard(FakePool::Handle());
  pool.Discard(pool.Acquire(kUncreatableKey));
  const PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.discarded, 0u);
  EXPECT_EQ(stats.destroyed, 0u);
}

TEST(ContextPoolTest, CreateFailureGivesNullHandle) {
  const int live_before = live_fake_contexts.load();
  FakePool pool;
  {
    FakePool::Handle handle = pool.Acquire(kUncreatableKey);
    EXPECT_EQ(handle, nullptr);
  }  // dropping a null handle returns nothing
  const PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.created, 0u);
  EXPECT_EQ(stats.reused, 0u);
  EXPECT_EQ(stats.destroyed, 0u);
  EXPECT_EQ(stats.pooled, 0u);
  EXPECT_EQ(live_fake_contexts.load(), live_before);
  // The pool still works for keys that can be created.
  EXPECT_NE(pool.Acquire(1), nullptr);
}

TEST(ContextPoolTest, ThreadExitParksIdleContextsForOtherThreads) {
  const int live_before = live_fake_contexts.load();
  {
    FakePool pool;
    std::thread worker([&pool] {
      {
        FakePool::Handle a = pool.Acquire(1);
        FakePool::Handle b = pool.Acquire(2);
      }
      EXPECT_EQ(pool.Stats().pooled, 2u);
      EXPECT_EQ(pool.Stats().in_reserve, 0u);
    });
    worker.join();
    PoolCounters stats = pool.Stats();
    EXPECT_EQ(stats.created, 2u);
    EXPECT_EQ(stats.pooled, 2u);
    EXPECT_EQ(stats.in_reserve, 2u);
    EXPECT_EQ(stats.destroyed, 0u);
    EXPECT_EQ(stats.pooled_bytes, 2 * kContextBytes);

    // This thread adopts them instead of creating contexts, by key.
    {
      FakePool::Handle a = pool.Acquire(1);
      FakePool::Handle c = pool.Acquire(3);  // no such key in the reserve
    }
    stats = pool.Stats();
    EXPECT_EQ(stats.created, 3u);
    EXPECT_EQ(stats.reused, 1u);
    EXPECT_EQ(stats.in_reserve, 1u);
    EXPECT_EQ(stats.pooled, 3u);
    ExpectConsistent(stats);
  }
  // The pool's teardown destroyed the reserve and this thread's list.
  EXPECT_EQ(live_fake_contexts.load(), live_before);
}

// Threads that exit one after another leave contexts of several keys in
// the reserve; a checkout takes one of its own key, the most recently
// parked first.
TEST(ContextPoolTest, AdoptionTakesTheNewestParkedContextOfItsKey) {
  constexpr int kThreads = 3;
  constexpr int kKeys = 5;
  FakePool pool;
  const std::vector<std::vector<int>> serials = ParkInOrder(
      pool,
      std::vector<std::vector<int>>(kThreads, std::vector<int>{1, 2, 3, 4, 5}));
  PoolCounters stats = pool.Stats();
  ASSERT_EQ(stats.created, uint64_t{kThreads * kKeys});
  ASSERT_EQ(stats.in_reserve, uint64_t{kThreads * kKeys});

  // Keys asked for in an order unlike the one they were parked in.
  std::vector<FakePool::Handle> adopted;
  for (int t = kThreads - 1; t >= 0; --t) {
    for (int key = kKeys; key >= 1; --key) {
      adopted.push_back(pool.Acquire(key));
      ASSERT_NE(adopted.back(), nullptr);
      EXPECT_EQ(adopted.back()->key, key);
      EXPECT_EQ(adopted.back()->serial, serials[t][key - 1])
          << "key " << key << " should come from thread " << t;
    }
  }
  // No key outside those parked is served from the reserve.
  adopted.push_back(pool.Acquire(kKeys + 1));
  stats = pool.Stats();
  EXPECT_EQ(stats.created, uint64_t{kThreads * kKeys + 1});
  EXPECT_EQ(stats.reused, uint64_t{kThreads * kKeys});
  EXPECT_EQ(stats.in_reserve, 0u);
  EXPECT_EQ(stats.pooled, 0u);
  ExpectConsistent(stats);
}

// Contexts left by exited threads of keys nobody asks for any more must not
// keep the byte cap full against the keys in use.
TEST(ContextPoolTest, FullBudgetEvictsOtherKeysOldestParkedFirst) {
  const int live_before = live_fake_contexts.load();
  FakePool pool(Limits(10, 4 * kContextBytes));
  // Key 1's second context is parked last, after those of keys 2 and 3.
  const std::vector<std::vector<int>> serials =
      ParkInOrder(pool, {{1}, {2}, {3}, {1}});
  PoolCounters stats = pool.Stats();
  ASSERT_EQ(stats.in_reserve, 4u);
  ASSERT_EQ(stats.pooled_bytes, 4 * kContextBytes);

  { FakePool::Handle handle = pool.Acquire(4); }
  stats = pool.Stats();
  EXPECT_EQ(last_destroyed_serial.load(), serials[0][0]);  // key 1, first
  EXPECT_EQ(stats.evicted, 1u);
  EXPECT_EQ(stats.rejected_by_caps, 0u);
  EXPECT_EQ(stats.destroyed, 1u);
  EXPECT_EQ(stats.in_reserve, 3u);
  EXPECT_EQ(stats.pooled, 4u);
  EXPECT_EQ(stats.pooled_bytes, 4 * kContextBytes);

  { FakePool::Handle handle = pool.Acquire(5); }
  EXPECT_EQ(last_destroyed_serial.load(), serials[1][0]);  // key 2
  EXPECT_EQ(pool.Stats().evicted, 2u);

  // A context that needs the room of two makes two go.
  {
    FakePool::Handle handle = pool.Acquire(6);
    handle->bytes = 2 * kContextBytes;
  }
  stats = pool.Stats();
  EXPECT_EQ(last_destroyed_serial.load(), serials[3][0]);  // key 1, second
  EXPECT_EQ(stats.evicted, 4u);
  EXPECT_EQ(stats.in_reserve, 0u);
  EXPECT_EQ(stats.pooled, 3u);
  EXPECT_EQ(stats.pooled_bytes, 4 * kContextBytes);
  EXPECT_EQ(stats.rejected_by_caps, 0u);
  ExpectConsistent(stats);
  EXPECT_EQ(stats.destroyed, stats.evicted);
  EXPECT_EQ(live_fake_contexts.load(), live_before + 3);

  // With the reserve empty, nothing more can give way.
  { FakePool::Handle handle = pool.Acquire(7); }
  stats = pool.Stats();
  EXPECT_EQ(stats.rejected_by_caps, 1u);
  EXPECT_EQ(stats.evicted, 4u);
}

TEST(ContextPoolTest, FullBudgetNeverEvictsTheReturningKey) {
  // Only the returning key is parked: evicting one of its own contexts to
  // pool another would gain nothing.
  {
    FakePool pool(Limits(10, 2 * kContextBytes));
    FakePool::Handle handle = pool.Acquire(1);
    ParkInOrder(pool, {{1}, {1}});
    handle.reset();
    const PoolCounters stats = pool.Stats();
    EXPECT_EQ(stats.rejected_by_caps, 1u);
    EXPECT_EQ(stats.evicted, 0u);
    EXPECT_EQ(stats.in_reserve, 2u);
    ExpectConsistent(stats);
  }
  // Another key gives way although the returning key's are older.
  {
    FakePool pool(Limits(10, 3 * kContextBytes));
    FakePool::Handle handle = pool.Acquire(1);
    const std::vector<std::vector<int>> serials =
        ParkInOrder(pool, {{1}, {1}, {2}});
    handle.reset();
    const PoolCounters stats = pool.Stats();
    EXPECT_EQ(last_destroyed_serial.load(), serials[2][0]);
    EXPECT_EQ(stats.evicted, 1u);
    EXPECT_EQ(stats.rejected_by_caps, 0u);
    EXPECT_EQ(stats.in_reserve, 2u);
    EXPECT_EQ(stats.pooled, 3u);
    ExpectConsistent(stats);
  }
}

TEST(ContextPoolTest, ContextTooLargeForTheCapEvictsNothing) {
  FakePool pool(Limits(10, 2 * kContextBytes));
  ParkInOrder(pool, {{1}, {2}});
  {
    FakePool::Handle handle = pool.Acquire(3);
    handle->bytes = 3 * kContextBytes;
  }
  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.rejected_by_caps, 1u);
  EXPECT_EQ(stats.evicted, 0u);
  EXPECT_EQ(stats.in_reserve, 2u);

  // Nor when all the reserve's other keys together would not make room.
  pool.SetLimits(Limits(10, 3 * kContextBytes));
  { FakePool::Handle handle = pool.Acquire(3); }  // in this thread's list
  ASSERT_EQ(pool.EvictReserveIf([](int key) { return key == 2; }), 1u);
  {
    FakePool::Handle handle = pool.Acquire(4);
    handle->bytes = 3 * kContextBytes;
  }
  stats = pool.Stats();
  EXPECT_EQ(stats.rejected_by_caps, 2u);
  EXPECT_EQ(stats.evicted, 1u);
  EXPECT_EQ(stats.in_reserve, 1u);
}

// Over a cap lowered below what is pooled, the other keys' parked contexts
// cannot make room for a returning one: evicting them would free them for
// nothing, so they stay and the returning context alone is turned away.
TEST(ContextPoolTest, EvictingThatCannotMakeRoomFreesNothing) {
  FakePool pool(Limits(10, 3 * kContextBytes));
  {
    FakePool::Handle a = pool.Acquire(1);
    FakePool::Handle b = pool.Acquire(1);
  }  // both idle in this thread's slot, out of the reserve's reach
  ParkInOrder(pool, {{2}});
  ASSERT_EQ(pool.Stats().pooled_bytes, 3 * kContextBytes);
  pool.SetLimits(Limits(10, kContextBytes + kContextBytes / 2));

  { FakePool::Handle handle = pool.Acquire(3); }
  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.rejected_by_caps, 1u);
  EXPECT_EQ(stats.evicted, 0u);
  EXPECT_EQ(stats.in_reserve, 1u);
  EXPECT_EQ(stats.pooled_bytes, 3 * kContextBytes);

  // Once evicting makes room, it does, and the room the returning context
  // does not use is claimable by the next.
  pool.SetLimits(Limits(10, 3 * kContextBytes));
  {
    FakePool::Handle handle = pool.Acquire(3);
    handle->bytes = kContextBytes / 2;
  }
  stats = pool.Stats();
  EXPECT_EQ(stats.evicted, 1u);
  EXPECT_EQ(stats.in_reserve, 0u);
  EXPECT_EQ(stats.pooled_bytes, 2 * kContextBytes + kContextBytes / 2);
  {
    FakePool::Handle handle = pool.Acquire(4);
    handle->bytes = kContextBytes / 2;
  }
  stats = pool.Stats();
  EXPECT_EQ(stats.rejected_by_caps, 1u);
  EXPECT_EQ(stats.evicted, 1u);
  EXPECT_EQ(stats.pooled, 4u);
  EXPECT_EQ(stats.pooled_bytes, 3 * kContextBytes);
  ExpectConsistent(stats);
}

TEST(ContextPoolTest, EvictReserveIfFreesOnlyMatchingParkedContexts) {
  const int live_before = live_fake_contexts.load();
  FakePool pool;
  // One of key 2 in this thread's own list, which eviction leaves alone.
  { FakePool::Handle handle = pool.Acquire(2); }
  ParkInOrder(pool, {{1, 2, 3}, {1, 2, 3}});
  ASSERT_EQ(pool.Stats().in_reserve, 6u);
  EXPECT_EQ(live_fake_contexts.load(), live_before + 7);

  EXPECT_EQ(pool.EvictReserveIf([](int key) { return key == 4; }), 0u);
  EXPECT_EQ(pool.EvictReserveIf([](int key) { return key >= 2; }), 4u);
  PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.evicted, 4u);
  EXPECT_EQ(stats.destroyed, 4u);
  EXPECT_EQ(stats.rejected_by_caps, 0u);
  EXPECT_EQ(stats.in_reserve, 2u);
  EXPECT_EQ(stats.pooled, 3u);
  EXPECT_EQ(stats.pooled_bytes, 3 * kContextBytes);
  EXPECT_EQ(live_fake_contexts.load(), live_before + 3);
  ExpectConsistent(stats);

  // Key 2 comes from this thread's list, key 1 from the reserve, key 3 is
  // new.
  {
    FakePool::Handle a = pool.Acquire(2);
    FakePool::Handle b = pool.Acquire(1);
    FakePool::Handle c = pool.Acquire(3);
  }
  stats = pool.Stats();
  EXPECT_EQ(stats.reused, 2u);
  EXPECT_EQ(stats.created, 8u);
  EXPECT_EQ(stats.in_reserve, 1u);
}

// Settings changed while threads that pooled contexts of the old settings
// live on, parked: those contexts must not keep the byte cap from the new
// key, nor their heap.
TEST(ContextPoolTest, EvictIdleIfFreesLivingThreadsIdleContextsAtOnce) {
  constexpr int kThreads = 12;
  constexpr int kOldKey = 6;
  constexpr int kNewKey = 7;
  const int live_before = live_fake_contexts.load();
  // Exactly the parked threads' contexts fit.
  auto budget =
      std::make_shared<IdleBudget>(Limits(2, kThreads * kContextBytes));
  FakePool pool(budget);
  Counter pooled;
  Gate exit;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      { FakePool::Handle handle = pool.Acquire(kOldKey); }
      pooled.Arrive();
      exit.Wait();
    });
  }
  pooled.WaitFor(kThreads);
  PoolCounters stats = pool.Stats();
  ASSERT_EQ(stats.pooled, uint64_t{kThreads});
  ASSERT_EQ(stats.pooled_bytes, kThreads * kContextBytes);

  EXPECT_EQ(pool.EvictIdleIf([](int key) { return key != kNewKey; }),
            size_t{kThreads});
  EXPECT_EQ(budget->pooled_bytes(), 0u);
  // Their threads have not run since.
  stats = pool.Stats();
  EXPECT_EQ(stats.pooled, 0u);
  EXPECT_EQ(stats.pooled_bytes, 0u);
  EXPECT_EQ(stats.live, 0u);
  EXPECT_EQ(stats.evicted, uint64_t{kThreads});
  EXPECT_EQ(live_fake_contexts.load(), live_before);

  constexpr int kCheckouts = 1000;
  for (int i = 0; i < kCheckouts; ++i) {
    FakePool::Handle handle = pool.Acquire(kNewKey);
    ASSERT_NE(handle, nullptr);
  }
  stats = pool.Stats();
  EXPECT_EQ(stats.created, uint64_t{kThreads} + 1);
  EXPECT_EQ(stats.reused, uint64_t{kCheckouts} - 1);
  EXPECT_EQ(stats.rejected_by_caps, 0u);
  EXPECT_EQ(stats.pooled, 1u);
  EXPECT_EQ(budget->pooled_bytes(), kContextBytes);

  // Exiting, the threads have nothing left to park or free.
  exit.Open();
  for (std::thread& thread : threads) thread.join();
  stats = pool.Stats();
  EXPECT_EQ(stats.in_reserve, 0u);
  EXPECT_EQ(stats.evicted, uint64_t{kThreads});
  EXPECT_EQ(stats.live, 1u);
  EXPECT_EQ(stats.pooled, 1u);
  EXPECT_EQ(budget->pooled_bytes(), kContextBytes);
  ExpectConsistent(stats);
  EXPECT_EQ(live_fake_contexts.load(), live_before + 1);
}

// A thread that holds its list when another thread comes to free it (here,
// paused as it takes a context out) keeps the list; the other thread takes
// the claim, its bytes back in the budget at once, and the list's thread
// frees the list as it lets go, then makes a new context. `free` is the
// other thread's call; `stale` whether it retires the key.
void ExpectAHeldListRevokedAndFreedAsItsThreadLetsGo(
    const std::function<size_t(FakePool&)>& free, bool stale) {
  const int live_before = live_fake_contexts.load();
  auto budget = std::make_shared<IdleBudget>(TestLimits());
  {
    FakePool pool(budget);
    Pause pause;
    int old_serial = 0;
    int new_serial = 0;
    std::thread worker([&] {
      FakeContext* idle = nullptr;
      {
        FakePool::Handle handle = pool.Acquire(1);
        old_serial = handle->serial;
        idle = handle.get();
      }
      idle->pause_in_bytes.store(&pause);
      FakePool::Handle handle = pool.Acquire(1);  // pauses, holding the list
      new_serial = handle->serial;
    });
    pause.reached.WaitFor(1);
    EXPECT_EQ(free(pool), 1u);
    EXPECT_EQ(budget->pooled_bytes(), 0u);
    PoolCounters stats = pool.Stats();
    EXPECT_EQ(stats.evicted, 0u) << "freed under its thread";
    EXPECT_EQ(stats.pooled, 1u);
    pause.resume.Open();
    worker.join();

    stats = pool.Stats();
    EXPECT_NE(new_serial, old_serial);
    EXPECT_EQ(stats.created, 2u);
    EXPECT_EQ(stats.reused, 0u);
    // The new one, checked out before a retirement, is freed on return.
    EXPECT_EQ(stats.evicted, stale ? 2u : 1u);
    EXPECT_EQ(stats.in_reserve, stale ? 0u : 1u);
    EXPECT_EQ(budget->pooled_bytes(), stale ? 0u : kContextBytes);
    ExpectConsistent(stats);
  }
  EXPECT_EQ(live_fake_contexts.load(), live_before);
}

TEST(ContextPoolTest, EvictIdleIfRevokesAHeldListItsThreadFreesAsItLetsGo) {
  ExpectAHeldListRevokedAndFreedAsItsThreadLetsGo(
      [](FakePool& pool) { return pool.EvictIdleIf([](int) { return true; }); },
      /*stale=*/true);
}

TEST(ContextPoolTest, TrimThreadsRevokesAHeldListItsThreadFreesAsItLetsGo) {
  ExpectAHeldListRevokedAndFreedAsItsThreadLetsGo(
      [](FakePool& pool) {
        pool.SetLimits(Limits(0, size_t{64} << 20));
        const size_t trimmed = pool.TrimThreads();
        pool.SetLimits(Limits(2, size_t{64} << 20));
        return trimmed;
      },
      /*stale=*/false);
}

// Lowered, the per-thread cap frees the oldest of each list beyond it, in
// living threads too; the byte cap frees parked contexts first, oldest
// first, then living threads' while the budget holds more than it.
TEST(ContextPoolTest, TrimmingFreesWhatIsIdleBeyondLoweredCaps) {
  constexpr int kThreads = 4;
  const int live_before = live_fake_contexts.load();
  auto budget = std::make_shared<IdleBudget>(Limits(3, size_t{1} << 30));
  {
    FakePool pool(budget);
    // Contexts of key 1 returned 3, 2, 1: the list holds them oldest first.
    std::vector<int> serials;
    {
      FakePool::Handle a = pool.Acquire(1);
      FakePool::Handle b = pool.Acquire(1);
      FakePool::Handle c = pool.Acquire(1);
      serials = {a->serial, b->serial, c->serial};
    }
    // Each thread keeps three of key 2, and the reserve has two of key 3.
    Counter pooled;
    Gate exit;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        {
          FakePool::Handle a = pool.Acquire(2);
          FakePool::Handle b = pool.Acquire(2);
          FakePool::Handle c = pool.Acquire(2);
        }
        pooled.Arrive();
        exit.Wait();
      });
    }
    const std::vector<std::vector<int>> parked = ParkInOrder(pool, {{3}, {3}});
    pooled.WaitFor(kThreads);
    ASSERT_EQ(pool.Stats().pooled, 3u + 3 * kThreads + 2);

    pool.SetLimits(Limits(1, size_t{1} << 30));
    EXPECT_EQ(pool.TrimReserve(), 0u) << "under the byte cap";
    EXPECT_EQ(pool.TrimThreads(), 2u + 2 * kThreads);
    PoolCounters stats = pool.Stats();
    EXPECT_EQ(stats.pooled, 1u + kThreads + 2);
    EXPECT_EQ(stats.in_reserve, 2u);
    EXPECT_EQ(stats.evicted, 2u + 2 * kThreads);
    EXPECT_EQ(budget->pooled_bytes(), (1 + kThreads + 2) * kContextBytes);
    EXPECT_EQ(live_fake_contexts.load(), live_before + 1 + kThreads + 2);
    {
      FakePool::Handle kept = pool.Acquire(1);
      EXPECT_EQ(kept->serial, serials[0]) << "the newest stays";
    }

    // Room for three: the reserve's two go, the older first, then living
    // threads' until three are left.
    pool.SetLimits(Limits(1, 3 * kContextBytes));
    EXPECT_EQ(pool.TrimReserve(), 2u);
    EXPECT_EQ(last_destroyed_serial.load(), parked[1][0]);
    EXPECT_EQ(pool.TrimThreads(), kThreads - 2u);
    stats = pool.Stats();
    EXPECT_EQ(stats.pooled, 3u);
    EXPECT_EQ(stats.in_reserve, 0u);
    EXPECT_EQ(budget->pooled_bytes(), 3 * kContextBytes);
    EXPECT_EQ(stats.pooled_bytes, 3 * kContextBytes);
    EXPECT_EQ(live_fake_contexts.load(), live_before + 3);
    ExpectConsistent(stats);

    // Within both caps, nothing more goes.
    EXPECT_EQ(pool.TrimReserve() + pool.TrimThreads(), 0u);
    exit.Open();
    for (std::thread& thread : threads) thread.join();
  }
  EXPECT_EQ(live_fake_contexts.load(), live_before);
}

// A context of an evicted key checked out before the eviction would claim
// the cap again on its return.
TEST(ContextPoolTest, CheckoutOfAnEvictedKeyIsFreedOnReturn) {
  const int live_before = live_fake_contexts.load();
  {
    auto budget = std::make_shared<IdleBudget>(TestLimits());
    FakePool pool(budget);
    FakePool::Handle old_key = pool.Acquire(1);
    FakePool::Handle kept_key = pool.Acquire(2);
    EXPECT_EQ(pool.EvictIdleIf([](int key) { return key == 1; }), 0u);
    old_key.reset();
    kept_key.reset();
    PoolCounters stats = pool.Stats();
    EXPECT_EQ(stats.evicted, 1u);
    EXPECT_EQ(stats.rejected_by_caps, 0u);
    EXPECT_EQ(stats.pooled, 1u);
    EXPECT_EQ(stats.live, 1u);

    // Checked out after the eviction, the key is pooled again.
    { FakePool::Handle handle = pool.Acquire(1); }
    stats = pool.Stats();
    EXPECT_EQ(stats.created, 3u);
    EXPECT_EQ(stats.pooled, 2u);
    EXPECT_EQ(stats.evicted, 1u);
    ExpectConsistent(stats);

    // This thread's own list is freed at once too.
    EXPECT_EQ(pool.EvictIdleIf([](int) { return true; }), 2u);
    EXPECT_EQ(budget->pooled_bytes(), 0u);
    EXPECT_EQ(pool.Stats().pooled, 0u);
    EXPECT_EQ(live_fake_contexts.load(), live_before);
  }
  EXPECT_EQ(live_fake_contexts.load(), live_before);
}

// `free` (evictions or trims) racing with checkouts and returns on other
// threads: every context is accounted for once, the budget agrees with the
// pool, and no revoked context is left once the threads are idle.
void ExpectTheBooksKeptWhileRacingWithTraffic(
    const std::function<void(FakePool&, size_t call)>& free) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  constexpr int kKeys = 3;
  const int live_before = live_fake_contexts.load();
  auto budget = std::make_shared<IdleBudget>(Limits(2, 8 * kContextBytes));
  {
    FakePool pool(budget);
    std::atomic<int> running{kThreads};
    Gate start;
    Counter done;
    Gate exit;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.Wait();
        for (int round = 0; round < kRounds; ++round) {
          FakePool::Handle a = pool.Acquire((t + round) % kKeys);
          FakePool::Handle b = pool.Acquire(round % kKeys);
        }
        running.fetch_sub(1);
        done.Arrive();
        exit.Wait();
      });
    }
    start.Open();
    size_t calls = 0;
    do {
      free(pool, calls++);
    } while (running.load() > 0);
    done.WaitFor(kThreads);
    pool.SetLimits(Limits(2, 8 * kContextBytes));
    PoolCounters stats = pool.Stats();
    EXPECT_EQ(stats.pooled_bytes, stats.pooled * kContextBytes);
    EXPECT_EQ(budget->pooled_bytes(), stats.pooled_bytes);
    EXPECT_LE(budget->pooled_bytes(), 8 * kContextBytes);
    EXPECT_EQ(stats.created + stats.reused, uint64_t{2} * kThreads * kRounds);
    EXPECT_EQ(stats.live, stats.pooled);
    ExpectConsistent(stats);

    exit.Open();
    for (std::thread& thread : threads) thread.join();
    stats = pool.Stats();
    EXPECT_EQ(stats.live, stats.in_reserve);
    EXPECT_EQ(stats.pooled, stats.in_reserve);
    EXPECT_EQ(stats.pooled_bytes, stats.pooled * kContextBytes);
    EXPECT_EQ(budget->pooled_bytes(), stats.pooled_bytes);
    EXPECT_EQ(stats.destroyed, stats.rejected_by_caps + stats.evicted);
  }
  EXPECT_EQ(budget->pooled_bytes(), 0u);
  EXPECT_EQ(live_fake_contexts.load(), live_before);
}

TEST(ContextPoolTest, EvictIdleIfRacingWithTrafficKeepsTheBooks) {
  ExpectTheBooksKeptWhileRacingWithTraffic([](FakePool& pool, size_t call) {
    const int stale = static_cast<int>(call % 3);
    pool.EvictIdleIf([stale](int key) { return key == stale; });
  });
}

TEST(ContextPoolTest, TrimmingRacingWithTrafficKeepsTheBooks) {
  ExpectTheBooksKeptWhileRacingWithTraffic([](FakePool& pool, size_t call) {
    // Lowered one call, raised the next.
    pool.SetLimits(call % 2 == 0 ? Limits(1, 3 * kContextBytes)
                                 : Limits(2, 8 * kContextBytes));
    pool.TrimReserve();
    pool.TrimThreads();
  });
}

TEST(ContextPoolTest, ThreadChurnReusesContexts) {
  FakePool pool;
  for (int i = 0; i < 50; ++i) {
    std::thread short_lived([&pool] { FakePool::Handle h = pool.Acquire(1); });
    short_lived.join();
  }
  const PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.created, 1u);
  EXPECT_EQ(stats.reused, 49u);
  EXPECT_EQ(stats.in_reserve, 1u);
  ExpectConsistent(stats);
}

TEST(ContextPoolTest, ManyThreadsStayWithinByteCap) {
  constexpr int kThreads = 16;
  constexpr int kRounds = 200;
  constexpr int kKeys = 3;
  // Every thread would like 4 idle contexts per key, 16 * 3 * 4 in all, but
  // the byte cap holds only 20.
  constexpr size_t kByteCap = 20 * kContextBytes;
  FakePool pool(Limits(4, kByteCap));
  std::atomic<uint64_t> max_seen_bytes{0};
  std::atomic<uint64_t> max_seen_pooled{0};
  Counter done;
  Gate exit;

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const int key = (t + round) % kKeys;
        {
          // Between one and three checkouts at once.
          std::vector<FakePool::Handle> handles;
          for (int i = 0; i <= round % 3; ++i) {
            handles.push_back(pool.Acquire(key));
            // No ASSERT: returning early would leave the test waiting.
            EXPECT_TRUE(handles.back() != nullptr &&
                        handles.back()->key == key);
          }
        }
        const PoolCounters stats = pool.Stats();
        uint64_t seen = max_seen_bytes.load();
        while (
            stats.pooled_bytes > seen &&
            !max_seen_bytes.compare_exchange_weak(seen, stats.pooled_bytes)) {
        }
        seen = max_seen_pooled.load();
        while (stats.pooled > seen &&
               !max_seen_pooled.compare_exchange_weak(seen, stats.pooled)) {
        }
      }
      done.Arrive();
      exit.Wait();  // keep this thread's idle contexts alive for the check
    });
  }
  done.WaitFor(kThreads);

  PoolCounters stats = pool.Stats();
  EXPECT_LE(max_seen_bytes.load(), kByteCap);
  EXPECT_LE(max_seen_pooled.load(), kByteCap / kContextBytes);
  EXPECT_GT(max_seen_bytes.load(), 0u);
  EXPECT_LE(stats.pooled_bytes, kByteCap);
  EXPECT_EQ(stats.pooled_bytes, stats.pooled * kContextBytes);
  // Nothing is checked out, so everything alive is idle.
  EXPECT_EQ(stats.created - stats.destroyed, stats.pooled);
  EXPECT_GT(stats.rejected_by_caps, 0u);
  EXPECT_EQ(stats.destroyed, stats.rejected_by_caps);
  uint64_t checkouts_per_thread = 0;
  for (int round = 0; round < kRounds; ++round) {
    checkouts_per_thread += round % 3 + 1;
  }
  EXPECT_EQ(stats.created + stats.reused, kThreads * checkouts_per_thread);
  ExpectConsistent(stats);

  exit.Open();
  for (std::thread& thread : threads) thread.join();
  // Every idle context moved to the reserve; none was freed or lost.
  const PoolCounters after_exit = pool.Stats();
  EXPECT_EQ(after_exit.in_reserve, stats.pooled);
  EXPECT_EQ(after_exit.pooled, stats.pooled);
  EXPECT_EQ(after_exit.pooled_bytes, stats.pooled_bytes);
  EXPECT_EQ(after_exit.destroyed, stats.destroyed);
  EXPECT_EQ(after_exit.created - after_exit.destroyed, after_exit.pooled);
}

TEST(ContextPoolTest, DestroyingPoolDestroysThisThreadsIdleContexts) {
  const int live_before = live_fake_contexts.load();
  {
    FakePool pool;
    {
      FakePool::Handle a = pool.Acquire(1);
      FakePool::Handle b = pool.Acquire(1);
      FakePool::Handle c = pool.Acquire(2);
    }
    ASSERT_EQ(pool.Stats().pooled, 3u);
    EXPECT_EQ(live_fake_contexts.load(), live_before + 3);
  }
  EXPECT_EQ(live_fake_contexts.load(), live_before);

  // A new pool on this thread starts from nothing.
  FakePool pool;
  FakePool::Handle handle = pool.Acquire(1);
  EXPECT_EQ(pool.Stats().created, 1u);
  EXPECT_EQ(pool.Stats().reused, 0u);
}

TEST(ContextPoolTest, OtherThreadsIdleContextsOutliveThePool) {
  const int live_before = live_fake_contexts.load();
  auto pool = std::make_unique<FakePool>();
  Counter pooled;
  Gate pool_gone;
  std::thread worker([&] {
    { FakePool::Handle handle = pool->Acquire(1); }
    pooled.Arrive();
    pool_gone.Wait();
    // Exiting now frees the idle context of a pool that no longer exists.
  });
  pooled.WaitFor(1);
  pool.reset();
  EXPECT_EQ(live_fake_contexts.load(), live_before + 1);
  pool_gone.Open();
  worker.join();
  EXPECT_EQ(live_fake_contexts.load(), live_before);
}

// Holds a checkout in thread-local storage. Constructed before the thread's
// first Acquire, it is destroyed after the pool's own per-thread cache.
struct ThreadLocalHolder {
  FakePool::Handle handle;
};

TEST(ContextPoolDeathTest, HandleReturnedAfterThreadCacheIsGoneIsDestroyed) {
  // The child re-runs only this test, so no other thread exists at fork.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const int live_before = live_fake_contexts.load();
        auto* pool = new FakePool;  // outlives the thread; never destroyed
        std::thread worker([pool] {
          static thread_local ThreadLocalHolder holder;
          holder.handle = pool->Acquire(1);
        });
        worker.join();
        // At thread exit the handle went back after the thread's cache was
        // destroyed; the context must have been destroyed, not leaked.
        std::_Exit(live_fake_contexts.load() == live_before ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST(ContextPoolDeathTest, StaticPoolOutlivingMainThreadCacheExitsCleanly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // At exit the main thread's cache dies before static objects, so
        // this pool's destructor runs with the cache already gone. Under
        // AddressSanitizer a use of the dead cache is reported here.
        static FakePool pool;
        { FakePool::Handle handle = pool.Acquire(1); }
        std::exit(0);
      },
      testing::ExitedWithCode(0), "");
}

TEST(ContextPoolTest, StatsIdentitiesHold) {
  FakePool pool(Limits(1, size_t{1} << 20));
  {
    FakePool::Handle a = pool.Acquire(1);
    FakePool::Handle b = pool.Acquire(1);  // rejected by the per-key cap
    FakePool::Handle c = pool.Acquire(2);
    c->reset_fails = true;  // discarded on return
    FakePool::Handle d = pool.Acquire(3);
    pool.Discard(std::move(d));  // discarded
  }
  FakePool::Handle in_use = pool.Acquire(1);  // reused
  const PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.created, 4u);
  EXPECT_EQ(stats.reused, 1u);
  EXPECT_EQ(stats.discarded, 2u);
  EXPECT_EQ(stats.rejected_by_caps, 1u);
  EXPECT_EQ(stats.destroyed, 3u);
  EXPECT_EQ(stats.live, 1u);
  EXPECT_EQ(stats.pooled, 0u);
  ExpectConsistent(stats);
  EXPECT_EQ(stats.destroyed, stats.discarded + stats.rejected_by_caps);

  PoolStats totals;
  static_cast<PoolCounters&>(totals) = stats;
  const std::string line = ToString(totals);
  EXPECT_NE(line.find("created=4"), std::string::npos) << line;
  EXPECT_NE(line.find("reused=1"), std::string::npos) << line;
  EXPECT_NE(line.find("discarded=2"), std::string::npos) << line;
  EXPECT_NE(line.find("rejected_by_caps=1"), std::string::npos) << line;
  EXPECT_NE(line.find("live=1"), std::string::npos) << line;
}

// `live` is a difference of two counters read without a lock; read in the
// wrong order under traffic it wraps to nearly 2^64.
TEST(ContextPoolTest, LiveNeverExceedsCreatedWhileContextsChurn) {
  constexpr int kChurners = 2;
  constexpr int kRoundsPerChurner = 2000000;
  FakePool pool;
  std::atomic<int> churners_done{0};
  Gate start;
  std::vector<std::thread> churners;
  for (int t = 0; t < kChurners; ++t) {
    churners.emplace_back([&] {
      start.Wait();
      // Every round creates a context and destroys it, so `destroyed`
      // keeps catching up with `created` while Stats() reads them.
      for (int round = 0; round < kRoundsPerChurner; ++round) {
        pool.Discard(pool.Acquire(1));
      }
      churners_done.fetch_add(1);
    });
  }
  uint64_t reads = 0;
  uint64_t bad_reads = 0;
  PoolCounters bad;
  start.Open();
  // Bounded by the churners' rounds.
  while (churners_done.load() < kChurners) {
    const PoolCounters stats = pool.Stats();
    ++reads;
    if (stats.live > stats.created) {
      if (bad_reads++ == 0) bad = stats;
    }
  }
  for (std::thread& churner : churners) churner.join();
  EXPECT_EQ(bad_reads, 0u) << "of " << reads
                           << " reads; first: live=" << bad.live
                           << " created=" << bad.created
                           << " destroyed=" << bad.destroyed;
  EXPECT_GT(reads, 0u);
  const PoolCounters stats = pool.Stats();
  EXPECT_EQ(stats.created, uint64_t{kChurners} * kRoundsPerChurner);
  EXPECT_EQ(stats.live, 0u);
}

TEST(ContextPoolTest, SetLimitsAppliesToLaterReleases) {
  FakePool pool;
  pool.SetLimits(Limits(1, 12345));
  EXPECT_EQ(pool.limits().max_idle_per_thread_per_key, 1u);
  EXPECT_EQ(pool.limits().max_pooled_bytes, 12345u);
  {
    FakePool::Handle a = pool.Acquire(1);
    FakePool::Handle b = pool.Acquire(1);
  }
  EXPECT_EQ(pool.Stats().pooled, 1u);
  EXPECT_EQ(pool.Stats().rejected_by_caps, 1u);

  // Raising the cap lets more contexts stay.
  pool.SetLimits(Limits(3, 12345));
  {
    FakePool::Handle a = pool.Acquire(1);
    FakePool::Handle b = pool.Acquire(1);
    FakePool::Handle c = pool.Acquire(1);
  }
  EXPECT_EQ(pool.Stats().pooled, 3u);
  EXPECT_EQ(pool.Stats().rejected_by_caps, 1u);

  // Lowering it does not trim the idle ones, but caps the next return.
  pool.SetLimits(Limits(0, 12345));
  EXPECT_EQ(pool.Stats().pooled, 3u);
  { FakePool::Handle a = pool.Acquire(1); }
  EXPECT_EQ(pool.Stats().pooled, 2u);
  EXPECT_EQ(pool.Stats().rejected_by_caps, 2u);

  // A zero byte cap pools nothing, whatever the count cap.
  FakePool other(Limits(5, 0));
  { FakePool::Handle a = other.Acquire(1); }
  EXPECT_EQ(other.Stats().pooled, 0u);
  EXPECT_EQ(other.Stats().rejected_by_caps, 1u);
}

}  // namespace
}  // namespace pooled_gzip::internal
