// After a Configure call that changes the backend, level or decoder, the
// idle contexts of the old settings give their share of max_pooled_bytes
// back, even in threads that stay alive without sending another message, so
// that contexts of the new settings are pooled again. And a call that lowers
// the caps frees what is idle beyond them before it returns.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

#include "absl/strings/string_view.h"
#include "codec/chunk_sink.h"
#include "codec/codec.h"
#include "codec/libdeflate_backend.h"
#include "codec/settings.h"
#include "parked_threads.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::internal {
namespace {

using test_support::ParkedThreads;

constexpr int kParkedThreads = 12;
constexpr int kMessages = 1000;
constexpr int kMinReused = 900;
constexpr size_t kMaxPooledBytes = size_t{8} << 20;

std::string Message() {
  std::string message;
  for (int i = 0; message.size() < 4096; ++i) {
    message += "field " + std::to_string(i % 97) + " of a pooled message; ";
  }
  return message;
}

std::string Compressed(const std::string& message) {
  std::string out;
  EXPECT_TRUE(
      CompressToString(message, ConfiguredOptions(Format::kGzip), &out).ok());
  return out;
}

std::string Inflated(const std::string& compressed) {
  std::string out;
  EXPECT_TRUE(DecompressToString(compressed, Format::kGzip, size_t{1} << 20,
                                 &out,
                                 ConfiguredReader(Format::kGzip).key.backend)
                  .ok());
  return out;
}

// Between `before` and `after`, kMessages checkouts of one pool, most of
// them served from it: the idle contexts of the old settings left room.
void ExpectMostlyReused(const PoolCounters& before, const PoolCounters& after,
                        const char* what) {
  const uint64_t created = after.created - before.created;
  const uint64_t reused = after.reused - before.reused;
  EXPECT_EQ(created + reused, uint64_t{kMessages});
  EXPECT_GE(reused, uint64_t{kMinReused}) << "created " << created;
  std::printf("%s: %llu created, %llu reused\n", what,
              static_cast<unsigned long long>(created),
              static_cast<unsigned long long>(reused));
}

// Each case starts from the options in force, and puts them back when it
// ends, however it ends.
class PoolingAfterConfigure : public testing::Test {
 protected:
  void TearDown() override { ASSERT_TRUE(Configure(saved_).ok()); }

  // The options the case began with, compressing with libdeflate at
  // `level`.
  Options LibdeflateAt(int level) const {
    Options options = saved_;
    options.backend = Backend::kLibdeflate;
    options.level = level;
    return options;
  }

  // Configures `options`, then leaves kParkedThreads threads in `parked`,
  // each with one idle writer in its own list; the statistics then.
  static PoolStats ParkIdleWriters(const Options& options,
                                   ParkedThreads* parked) {
    EXPECT_TRUE(Configure(options).ok());
    const std::string message = Message();
    for (int i = 0; i < kParkedThreads; ++i) {
      parked->Park([&] { Compressed(message); });
    }
    const PoolStats warm = GetPoolStats();
    EXPECT_EQ(warm.writers.pooled - warm.writers.in_reserve,
              uint64_t{kParkedThreads});
    return warm;
  }

  const Options saved_ = GetOptions();
};

TEST_F(PoolingAfterConfigure, LevelChangeReleasesLiveThreadsIdleWriters) {
  Options options = LibdeflateAt(6);
  options.max_pooled_bytes = kMaxPooledBytes;
  // Each thread leaves one idle level-6 writer in its own list.
  ParkedThreads parked;
  const PoolStats warm = ParkIdleWriters(options, &parked);
  ASSERT_EQ(warm.writers.in_reserve, 0u);
  const std::string message = Message();
  // The cap has no room for a thirteenth writer.
  ASSERT_GT(warm.pooled_bytes + warm.pooled_bytes / kParkedThreads,
            kMaxPooledBytes);

  options.level = 7;
  ASSERT_TRUE(Configure(options).ok());
  const PoolStats configured = GetPoolStats();
  // Freed from their threads' lists, which have not run since.
  EXPECT_EQ(configured.writers.pooled, 0u);
  EXPECT_EQ(configured.writers.live, 0u);
  EXPECT_EQ(configured.writers.evicted - warm.writers.evicted,
            uint64_t{kParkedThreads});
  EXPECT_EQ(configured.pooled_bytes, 0u);

  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(Inflated(Compressed(message)), message);
  }
  const PoolStats after = GetPoolStats();
  ExpectMostlyReused(configured.writers, after.writers,
                     "after the level change: writers");
  EXPECT_LE(after.pooled_bytes, kMaxPooledBytes);
  EXPECT_EQ(after.writers.rejected_by_caps, 0u);
}

// Idle threads hold a writer each; a lower byte cap frees writers, in
// those threads' lists too, until what stays fits: counted and freed, not
// only taken off the count.
TEST_F(PoolingAfterConfigure, LoweringMaxPooledBytesFreesIdleContextsToIt) {
  Options options = LibdeflateAt(6);
  options.max_pooled_bytes = kMaxPooledBytes;
  ParkedThreads parked;
  const PoolStats warm = ParkIdleWriters(options, &parked);
  ASSERT_EQ(warm.writers.in_reserve, 0u);

  options.max_pooled_bytes = warm.pooled_bytes / 3;
  ASSERT_TRUE(Configure(options).ok());
  const PoolStats trimmed = GetPoolStats();
  std::printf("pooled_bytes %llu, max_pooled_bytes lowered to %zu: %llu\n",
              static_cast<unsigned long long>(warm.pooled_bytes),
              options.max_pooled_bytes,
              static_cast<unsigned long long>(trimmed.pooled_bytes));
  EXPECT_LE(trimmed.pooled_bytes, options.max_pooled_bytes);
  EXPECT_LE(trimmed.writers.pooled_bytes + trimmed.readers.pooled_bytes,
            options.max_pooled_bytes)
      << "idle contexts left allocated beyond the cap";
  EXPECT_GT(trimmed.writers.pooled, 0u) << "freed more than the cap asked";
  EXPECT_EQ(trimmed.writers.live, trimmed.writers.pooled);
  EXPECT_EQ(trimmed.writers.evicted - warm.writers.evicted,
            warm.writers.pooled - trimmed.writers.pooled);
}

// The same for the per-thread cap: at 0, no thread keeps an idle writer.
TEST_F(PoolingAfterConfigure, LoweringMaxIdlePerThreadFreesIdleContextsToIt) {
  Options options = LibdeflateAt(6);
  ParkedThreads parked;
  const PoolStats warm = ParkIdleWriters(options, &parked);

  options.max_idle_contexts_per_thread = 0;
  ASSERT_TRUE(Configure(options).ok());
  const PoolStats trimmed = GetPoolStats();
  EXPECT_EQ(trimmed.writers.pooled - trimmed.writers.in_reserve, 0u)
      << "threads keep idle writers beyond the per-thread cap";
  EXPECT_EQ(trimmed.writers.live, trimmed.writers.in_reserve);
  EXPECT_LE(trimmed.pooled_bytes,
            warm.pooled_bytes - kParkedThreads * LibdeflateCompressorBytes(6));
}

// The deterministic interleaving of a message that read the settings just
// before a Configure and took its writer just after: that writer is of
// settings no message asks for any more, and is freed when it returns
// instead of pooled (a level-12 writer would hold 9 MB of the cap for as
// long as its thread lives). On a thread of its own, which had no slot for
// the old key when the change came.
TEST_F(PoolingAfterConfigure, AWriterForSettingsReadBeforeAChangeIsNotPooled) {
  Options options = LibdeflateAt(12);
  options.max_pooled_bytes = size_t{64} << 20;
  ASSERT_TRUE(Configure(options).ok());
  const std::string message = Message();
  std::thread([&] {
    const CompressOptions read_before = ConfiguredOptions(Format::kGzip);
    ASSERT_EQ(read_before.level, 12);
    options.level = 6;
    ASSERT_TRUE(Configure(options).ok());
    const PoolStats configured = GetPoolStats();
    std::string out;
    ASSERT_TRUE(CompressToString(message, read_before, &out).ok());
    const PoolStats after = GetPoolStats();
    EXPECT_EQ(after.writers.pooled, configured.writers.pooled);
    EXPECT_EQ(after.writers.evicted, configured.writers.evicted + 1);
    EXPECT_LT(after.pooled_bytes, LibdeflateCompressorBytes(6))
        << "a level-12 writer holds the cap";
    // A writer of the settings in force is pooled as ever.
    ASSERT_TRUE(
        CompressToString(message, ConfiguredOptions(Format::kGzip), &out).ok());
    EXPECT_EQ(GetPoolStats().writers.pooled, after.writers.pooled + 1);
  }).join();
}

// Raw mode's decode reads its reader as the core codec does, with the
// generation: one whose settings were read just before a Configure that
// retires them is freed when it returns instead of pooled. Raw mode's
// DecompressSlices is ConfiguredReader then Decompress with what it
// returned; the Configure comes between the two. On a thread of its own,
// which had no slot for the old key when the change came.
TEST_F(PoolingAfterConfigure,
       ARawModeReaderForSettingsReadBeforeAChangeIsNotPooled) {
  Options options = saved_;
  options.decoder = Backend::kLibdeflate;
  ASSERT_TRUE(Configure(options).ok());
  const std::string message = Message();
  const std::string compressed = Compressed(message);
  std::thread([&] {
    const ConfiguredReaderKey read_before = ConfiguredReader(Format::kGzip);
    ASSERT_EQ(read_before.key.backend, Backend::kLibdeflate);
    options.decoder = Backend::kZlib;
    ASSERT_TRUE(Configure(options).ok());
    const PoolStats configured = GetPoolStats();
    std::string out;
    StringSink sink(&out, size_t{1} << 20);
    const absl::string_view input = compressed;
    ASSERT_TRUE(Decompress({&input, 1}, Format::kGzip, size_t{1} << 20, &sink,
                           read_before)
                    .ok());
    ASSERT_EQ(out, message);
    const PoolStats after = GetPoolStats();
    EXPECT_EQ(after.readers.pooled, configured.readers.pooled);
    EXPECT_EQ(after.readers.evicted, configured.readers.evicted + 1);
    // A reader of the settings in force is pooled as ever.
    out.clear();
    StringSink current_sink(&out, size_t{1} << 20);
    ASSERT_TRUE(Decompress({&input, 1}, Format::kGzip, size_t{1} << 20,
                           &current_sink, ConfiguredReader(Format::kGzip))
                    .ok());
    EXPECT_EQ(GetPoolStats().readers.pooled, after.readers.pooled + 1);
  }).join();
}

// A thread that only receives after a level change keeps none of the
// writers it pooled before: they are of settings no message asks for any
// more, and the thread may never send again.
TEST_F(PoolingAfterConfigure, AThreadThatOnlyReceivesKeepsNoOldWriters) {
  Options options = LibdeflateAt(12);
  ASSERT_TRUE(Configure(options).ok());
  const std::string message = Message();
  std::thread([&] {
    const std::string compressed = Compressed(message);
    ASSERT_EQ(Inflated(compressed), message);
    const PoolStats warm = GetPoolStats();
    ASSERT_GE(warm.writers.pooled_bytes, LibdeflateCompressorBytes(12));
    options.level = 6;
    ASSERT_TRUE(Configure(options).ok());
    const PoolStats configured = GetPoolStats();
    EXPECT_GT(configured.writers.evicted, warm.writers.evicted);
    EXPECT_LT(configured.writers.live, warm.writers.live)
        << "the level-12 writer still holds its heap";
    EXPECT_LT(configured.writers.pooled_bytes, LibdeflateCompressorBytes(12));

    ASSERT_EQ(Inflated(compressed), message);
    const PoolStats after = GetPoolStats();
    EXPECT_EQ(after.writers.live, configured.writers.live);
    EXPECT_EQ(after.writers.evicted, configured.writers.evicted);
  }).join();
}

TEST_F(PoolingAfterConfigure, DecoderChangeReleasesLiveThreadsIdleReaders) {
  Options options = saved_;
  options.decoder = Backend::kLibdeflate;
  ASSERT_TRUE(Configure(options).ok());
  const std::string message = Message();
  const std::string compressed = Compressed(message);

  // This thread may hold a reader of its own from an earlier test.
  const uint64_t already_pooled = GetPoolStats().readers.pooled;
  // Each thread leaves one idle libdeflate reader in its own list.
  ParkedThreads parked(kParkedThreads, [&] { Inflated(compressed); });
  const PoolStats warm = GetPoolStats();
  ASSERT_EQ(warm.readers.pooled, already_pooled + kParkedThreads);

  // A cap they fill exactly, set by the call that changes the decoder.
  options.decoder = Backend::kZlib;
  options.max_pooled_bytes = warm.pooled_bytes;
  ASSERT_TRUE(Configure(options).ok());
  const PoolStats configured = GetPoolStats();
  // Freed from their threads' lists, which have not run since.
  EXPECT_LE(configured.readers.pooled, already_pooled);
  EXPECT_GE(configured.readers.evicted - warm.readers.evicted,
            uint64_t{kParkedThreads});
  EXPECT_EQ(configured.pooled_bytes, warm.pooled_bytes -
                                         warm.readers.pooled_bytes +
                                         configured.readers.pooled_bytes);

  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(Inflated(compressed), message);
  }
  const PoolStats after = GetPoolStats();
  ExpectMostlyReused(configured.readers, after.readers,
                     "after the decoder change: readers");
  EXPECT_LE(after.pooled_bytes, warm.pooled_bytes);
}

}  // namespace
}  // namespace pooled_gzip::internal
