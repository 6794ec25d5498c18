// Thread churn: 10,000 short-lived threads, each compressing and
// decompressing through the process-wide pool, then exiting with whatever it
// pooled. Whatever the pool does with an exiting thread's idle contexts, it
// must not lose one (the counters here, LeakSanitizer in the sanitizer
// build), must never hold more idle bytes than its cap, and at rest must
// account for every context it ever created: created - destroyed == pooled.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "codec/codec.h"
#include "hostile_inputs.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"
#include "process_memory.h"
#include "round_trip.h"

namespace pooled_gzip::reliability {
namespace {

using internal::CompressOptions;
using internal::CompressToString;
using internal::DecompressToString;
using internal::Format;
using test_support::RoundTrips;

constexpr int kThreads = 10000;
// Threads alive at once: enough to contend for the byte cap on two cores,
// few enough that the churn, not the parallelism, is what is tested.
constexpr int kConcurrent = 8;

std::string Text(size_t size, uint32_t seed) {
  std::string text;
  while (text.size() < size) {
    text += "thread " + std::to_string(seed) + " says hello to the pool; ";
  }
  text.resize(size);
  return text;
}

// What every churn thread does, once: a message through each kind of context
// it uses, checked, with the cap checked after each step.
struct Worker {
  std::atomic<int>* errors;
  std::atomic<uint64_t>* max_pooled_bytes_seen;

  void NotePooledBytes() const {
    const uint64_t pooled = GetPoolStats().pooled_bytes;
    uint64_t seen = max_pooled_bytes_seen->load();
    while (pooled > seen &&
           !max_pooled_bytes_seen->compare_exchange_weak(seen, pooled)) {
    }
  }

  void operator()(int index) const {
    const std::string text = Text(200 + (index % 50) * 40, index);
    const Format format = index % 2 == 0 ? Format::kGzip : Format::kDeflate;
    CompressOptions options;
    options.format = format;
    options.level = index % 3 == 0 ? 1 : kDefaultLevel;
    std::string compressed;
    std::string inflated;
    if (!CompressToString(text, options, &compressed).ok()) ++*errors;
    NotePooledBytes();
    if (!DecompressToString(compressed, format, text.size(), &inflated).ok() ||
        inflated != text) {
      ++*errors;
    }
    NotePooledBytes();
    // Every tenth thread also hits an error, so discarded contexts churn too.
    if (index % 10 == 0 &&
        DecompressToString(compressed.substr(0, compressed.size() / 2), format,
                           text.size(), &inflated)
            .ok()) {
      ++*errors;
    }
    // A second round on this thread's now warm free list.
    if (!RoundTrips(text, format, options.level)) ++*errors;
    NotePooledBytes();
  }
};

TEST(ThreadChurn, TenThousandThreadsLeaveNothingBehind) {
  const Options original = GetOptions();
  // Room for two idle writers (a deflate context is ~270 KiB), so
  // most threads find the byte cap full and the cap is really exercised.
  Options limits = original;
  limits.max_idle_contexts_per_thread = 2;
  limits.max_pooled_bytes = 600 * 1024;
  ASSERT_TRUE(Configure(limits).ok());

  const PoolStats start = GetPoolStats();
  std::atomic<int> errors{0};
  std::atomic<uint64_t> max_pooled_bytes_seen{start.pooled_bytes};
  const Worker worker{&errors, &max_pooled_bytes_seen};
  const size_t rss_start = CurrentRssBytes();
  size_t rss_half = 0;
  for (int first = 0; first < kThreads; first += kConcurrent) {
    std::vector<std::thread> threads;
    for (int i = first; i < std::min(first + kConcurrent, kThreads); ++i) {
      threads.emplace_back(worker, i);
    }
    for (std::thread& thread : threads) thread.join();
    if (first + kConcurrent >= kThreads / 2 && rss_half == 0) {
      rss_half = CurrentRssBytes();
    }
    // Every thread of the batch is gone. Whatever became of its idle
    // contexts (freed, or kept for later threads), none is checked out and
    // the idle ones stay within the byte cap.
    const PoolStats now = GetPoolStats();
    ASSERT_EQ(now.created - now.destroyed, now.pooled)
        << "after thread " << first << ": " << ToString(now);
    ASSERT_LE(now.pooled_bytes, limits.max_pooled_bytes)
        << "after thread " << first;
  }
  const PoolStats end = GetPoolStats();
  ASSERT_TRUE(Configure(original).ok());

  EXPECT_EQ(errors.load(), 0);
  EXPECT_LE(max_pooled_bytes_seen.load(), limits.max_pooled_bytes);
  // The caps were hit: a full byte cap turns a returned context away, or
  // frees parked contexts of other kinds to make room for it (evicted; no
  // Configure runs in between), whichever the threads' timing gives. And
  // contexts were checked out (at least four per thread), reused and
  // discarded.
  EXPECT_GT((end.rejected_by_caps - start.rejected_by_caps) +
                (end.evicted - start.evicted),
            0u);
  EXPECT_GE((end.created + end.reused) - (start.created + start.reused),
            uint64_t{4 * kThreads});
  EXPECT_GT(end.reused, start.reused);
  EXPECT_GE(end.discarded - start.discarded, uint64_t{kThreads / 10});
  // At rest: created - destroyed == pooled, within the cap.
  EXPECT_EQ(end.created - end.destroyed, end.pooled) << ToString(end);
  EXPECT_LE(end.pooled_bytes, limits.max_pooled_bytes);
  std::printf(
      "churn: %d threads; RSS %.1f MiB at start, %.1f at half, %.1f "
      "at end; %s\n",
      kThreads, rss_start / double(kMiB), rss_half / double(kMiB),
      CurrentRssBytes() / double(kMiB), ToString(end).c_str());
  if (!kSanitized) {
    // Leaked contexts (~260 KiB each) would show here long before LSan.
    EXPECT_LT(CurrentRssBytes(), rss_half + 32 * kMiB);
  }
}

// Holds every thread that arrives until `count` have.
class Barrier {
 public:
  explicit Barrier(int count) : waiting_for_(count) {}
  void ArriveAndWait() {
    std::unique_lock<std::mutex> lock(mu_);
    if (--waiting_for_ == 0) cv_.notify_all();
    cv_.wait(lock, [this] { return waiting_for_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_for_;
};

// Compresses `messages` messages with the configured backend and level,
// counting failures in `errors`.
void CompressConfigured(int messages, uint32_t seed, std::atomic<int>* errors) {
  const std::string text = Text(8 * 1024, seed);
  std::string compressed;
  for (int i = 0; i < messages; ++i) {
    if (!CompressToString(text, internal::ConfiguredOptions(Format::kGzip),
                          &compressed)
             .ok()) {
      ++*errors;
    }
  }
}

// Threads that exited leave their writers in the reserve, enough of them to
// fill the default byte cap. Once the level changes nobody wants those, and
// the writers of the new level must still be pooled and reused.
TEST(ThreadChurn, PoolRecoversAfterTheLevelChanges) {
  const Options original = GetOptions();
  Options options = original;
  // The default 64 MiB: room for about 100 level-6 writers.
  options.max_idle_contexts_per_thread = Options().max_idle_contexts_per_thread;
  options.max_pooled_bytes = Options().max_pooled_bytes;
  options.backend = Backend::kLibdeflate;
  options.level = 6;
  ASSERT_TRUE(Configure(options).ok());

  constexpr int kOldThreads = 100;
  std::atomic<int> errors{0};
  {
    // All alive at once, so that each creates a writer of its own.
    Barrier all_compressed(kOldThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kOldThreads; ++t) {
      threads.emplace_back([&, t] {
        CompressConfigured(10, t, &errors);
        all_compressed.ArriveAndWait();
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  const PoolStats after_old = GetPoolStats();
  EXPECT_GE(after_old.writers.in_reserve, uint64_t{kOldThreads * 9 / 10})
      << ToString(after_old);

  options.level = 5;
  ASSERT_TRUE(Configure(options).ok());
  // The change itself frees what no message asks for any more.
  EXPECT_EQ(GetPoolStats().writers.in_reserve, 0u) << ToString(GetPoolStats());
  constexpr int kNewThreads = 8;
  constexpr int kMessagesPerThread = 1000;
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < kNewThreads; ++t) {
      threads.emplace_back(CompressConfigured, kMessagesPerThread, t, &errors);
    }
    for (std::thread& thread : threads) thread.join();
  }
  const PoolStats end = GetPoolStats();
  ASSERT_TRUE(Configure(original).ok());

  EXPECT_EQ(errors.load(), 0);
  const uint64_t created = end.writers.created - after_old.writers.created;
  const uint64_t reused = end.writers.reused - after_old.writers.reused;
  EXPECT_EQ(created + reused, uint64_t{kNewThreads * kMessagesPerThread});
  EXPECT_GE(reused, uint64_t{kNewThreads * kMessagesPerThread * 7 / 8})
      << "created " << created << "; " << ToString(end);
  std::printf("after the level change: %llu writers created, %llu reused; %s\n",
              static_cast<unsigned long long>(created),
              static_cast<unsigned long long>(reused), ToString(end).c_str());
}

}  // namespace
}  // namespace pooled_gzip::reliability
