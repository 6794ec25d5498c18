// fork() while other threads use the pool: the child, whose only thread is
// the one that forked, must compress, decompress and configure at once. A
// lock another thread held at the fork would stay held in the child for
// ever, so the child would hang on its first use of the pool.
//
// The traffic churns threads, since a thread's first use of a key and its
// exit are what take the pool's locks (a steady thread takes none), and
// keeps changing the level, which takes the settings lock and every pool
// lock in turn.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "child_process.h"
#include "codec/codec.h"
#include "pool/held_across_fork.h"
#include "pooled_gzip/options.h"
#include "round_trip.h"

namespace pooled_gzip::reliability {
namespace {

using internal::Format;
using support::ChildProcess;
using test_support::RoundTrips;

constexpr int kForks = 300;
// Threads churning through the pool while the main thread forks.
constexpr int kChurners = 3;
// A child prints a line per step, each a few milliseconds of work even
// under TSan; this long without one, it is hung.
constexpr absl::Duration kPerStep = absl::Seconds(60);

std::string Message(int seed) {
  std::string text;
  while (text.size() < 4096) {
    text += absl::StrCat("fork ", seed, " asks the pool for a context; ");
  }
  return text;
}

// The traffic: threads that each do one round trip and exit, and a thread
// changing the level, until stopped. Each thread has done a round before
// the constructor returns, so the pool is busy from the first fork on.
class Traffic {
 public:
  Traffic() {
    for (int i = 0; i < kChurners; ++i) {
      threads_.emplace_back([this, i] { Churn(i); });
    }
    threads_.emplace_back([this] { Reconfigure(); });
    std::unique_lock<std::mutex> lock(mutex_);
    started_.wait(lock, [this] { return running_ == kChurners + 1; });
  }

  ~Traffic() {
    stop_.store(true, std::memory_order_relaxed);
    for (std::thread& thread : threads_) thread.join();
    EXPECT_TRUE(Configure(Options()).ok());
  }

  int failures() const { return failures_.load(); }

 private:
  void Started() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (++running_ == kChurners + 1) started_.notify_one();
  }

  void Churn(int index) {
    for (uint64_t round = 0; !stop_.load(std::memory_order_relaxed); ++round) {
      const Format format = round % 2 == 0 ? Format::kGzip : Format::kDeflate;
      const int level = 1 + static_cast<int>(round % 9);
      std::thread([&] {
        if (!RoundTrips(Message(index), format, level)) ++failures_;
      }).join();
      if (round == 0) Started();
    }
  }

  void Reconfigure() {
    Options options;
    for (uint64_t round = 0; !stop_.load(std::memory_order_relaxed); ++round) {
      options.level = round % 2 == 0 ? 1 : 6;
      if (!Configure(options).ok()) ++failures_;
      if (round == 0) Started();
    }
  }

  std::atomic<bool> stop_{false};
  std::atomic<int> failures_{0};
  std::mutex mutex_;
  std::condition_variable started_;
  int running_ = 0;  // guarded by mutex_
  std::vector<std::thread> threads_;
};

void Say(absl::string_view line) {
  const std::string text = absl::StrCat(line, "\n");
  // write(2), not stdio: nothing in the child but what it says here.
  if (write(STDOUT_FILENO, text.data(), text.size()) < 0) _exit(3);
}

// The child: each step that could hang on a lock says so when done.
int ForkedChild(int fork_index) {
  Say("forked");
  const std::string text = Message(fork_index);
  if (!RoundTrips(text, Format::kGzip, kDefaultLevel)) return 1;
  Say("gzip round trip intact");
  if (!RoundTrips(text, Format::kDeflate, 1)) return 1;
  Say("zlib round trip intact");
  Options options = GetOptions();
  options.level = 9;
  if (!Configure(options).ok()) return 1;
  if (!RoundTrips(text, Format::kGzip, kDefaultLevel)) return 1;
  Say("configured, and round trip intact");
  return 0;
}

TEST(ForkTest, ChildOfABusyPoolCompressesAndDecompresses) {
  Traffic traffic;
  absl::Duration slowest;
  const absl::Time start = absl::Now();
  for (int i = 0; i < kForks; ++i) {
    const absl::Time forked = absl::Now();
    absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Fork(
        absl::StrCat("fork ", i), [i] { return ForkedChild(i); });
    ASSERT_TRUE(child.ok()) << child.status();
    const absl::StatusOr<int> code =
        (*child)->WaitForExitWhileProgressing(kPerStep);
    ASSERT_TRUE(code.ok()) << "child " << i + 1 << " of " << kForks
                           << " hung: " << code.status();
    ASSERT_EQ(*code, 0) << "child " << i + 1 << " of " << kForks
                        << " exited with " << *code
                        << " (128+N: signal N); output:\n"
                        << (*child)->output();
    slowest = std::max(slowest, absl::Now() - forked);
  }
  EXPECT_EQ(traffic.failures(), 0);
  std::cout << kForks << " children of a busy pool done in "
            << absl::FormatDuration(absl::Now() - start) << ", the slowest in "
            << absl::FormatDuration(slowest) << "\n";
}

// The library's other process-wide mutexes (the slot stores, the built
// builders, the learned allocators, the settings) are registered with
// HoldAcrossFork. One held by another thread nearly all the time must be
// free in every child, where a plain mutex would mostly stay locked.
std::mutex& BusyMutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}

TEST(ForkTest, AMutexHeldAcrossForkIsFreeInTheChild) {
  internal::HoldAcrossFork<&BusyMutex>();
  std::atomic<bool> stop{false};
  std::atomic<bool> held_once{false};
  std::thread holder([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      std::lock_guard<std::mutex> lock(BusyMutex());
      held_once.store(true, std::memory_order_relaxed);
      for (volatile int spin = 0; spin < 100000; ++spin) {
      }
    }
  });
  while (!held_once.load(std::memory_order_relaxed)) std::this_thread::yield();
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<std::unique_ptr<ChildProcess>> child =
        ChildProcess::Fork(absl::StrCat("fork ", i), [] {
          if (!BusyMutex().try_lock()) return 1;
          BusyMutex().unlock();
          return 0;
        });
    ASSERT_TRUE(child.ok()) << child.status();
    const absl::StatusOr<int> code =
        (*child)->WaitForExitWhileProgressing(kPerStep);
    ASSERT_TRUE(code.ok()) << code.status();
    ASSERT_EQ(*code, 0) << "child " << i << " found the mutex locked";
  }
  stop.store(true);
  holder.join();
}

}  // namespace
}  // namespace pooled_gzip::reliability
