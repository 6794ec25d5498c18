// What the library keeps of a thread's messages once the thread idles: the
// pools' idle contexts, within max_pooled_bytes for all threads together,
// and a fixed part per thread (kFixedBytesPerThread, seam/served_stream.h),
// whatever the size of the messages the thread handled. Messages go through
// gRPC's own message codec (grpc_msg_compress, grpc_msg_decompress) with
// the core codec active, as a server's threads compress replies and inflate
// requests; the heap is the allocator's count (testing/heap_in_use.h).

#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "heap_in_use.h"
#include "message_codec.h"
#include "parked_threads.h"
#include "payloads.h"
#include "plain_zlib.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"
#include "pooled_gzip/pooled_gzip.h"
#include "seam/served_stream.h"

namespace pooled_gzip::internal {
namespace {

using test_support::HeapInUse;
using test_support::ParkedThreads;

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kSentBytes = 64 * kMiB;
constexpr size_t kReceivedBytes = 4 * kMiB;
// A received message comes in the transport's pieces, which the seam joins.
constexpr size_t kReceivedSliceBytes = 16 << 10;
constexpr int kThreads = 64;
// Heap a parked thread holds that is not the library's: glibc's cache of
// the thread's freed small blocks, the thread's own bookkeeping.
constexpr size_t kHarnessBytesPerThread = 16 << 10;

class KeptMemory : public testing::Test {
 protected:
  static void SetUpTestSuite() { grpc_init(); }
  static void TearDownTestSuite() { grpc_shutdown(); }
  void SetUp() override { ASSERT_TRUE(InstallCoreCodec()); }
  void TearDown() override { ASSERT_TRUE(Configure(saved_).ok()); }

  const Options saved_ = GetOptions();
};

// Made once: 64 MiB of random bytes take a while, under sanitizers most.
const std::string& Incompressible() {
  static const auto* message = new std::string(
      payloads::Make(payloads::Kind::kRandom, kSentBytes, /*seed=*/1));
  return *message;
}

// The grpc_msg_compress result for a gzip message: 1 sent compressed, 0
// sent plain (what did not shrink).
int Send(const std::string& message) {
  grpc_slice_buffer input;
  grpc_slice_buffer output;
  grpc_slice_buffer_init(&input);
  grpc_slice_buffer_init(&output);
  grpc_slice_buffer_add(
      &input, grpc_slice_from_static_buffer(message.data(), message.size()));
  const int compressed = grpc_msg_compress(GRPC_COMPRESS_GZIP, &input, &output);
  grpc_slice_buffer_destroy(&output);
  grpc_slice_buffer_destroy(&input);
  return compressed;
}

// The size of the message a gzip stream in `pieces` inflates to; 0 if the
// codec refused it.
size_t Receive(const std::vector<std::string>& pieces) {
  grpc_slice_buffer input;
  grpc_slice_buffer output;
  grpc_slice_buffer_init(&input);
  grpc_slice_buffer_init(&output);
  for (const std::string& piece : pieces) {
    grpc_slice_buffer_add(
        &input, grpc_slice_from_static_buffer(piece.data(), piece.size()));
  }
  const size_t size = grpc_msg_decompress(GRPC_COMPRESS_GZIP, &input, &output)
                          ? output.length
                          : 0;
  grpc_slice_buffer_destroy(&output);
  grpc_slice_buffer_destroy(&input);
  return size;
}

std::vector<std::string> GzipPieces(const std::string& message) {
  const std::string stream = plain_zlib::Deflate(message, Format::kGzip);
  std::vector<std::string> pieces;
  for (size_t at = 0; at < stream.size(); at += kReceivedSliceBytes) {
    pieces.push_back(stream.substr(at, kReceivedSliceBytes));
  }
  return pieces;
}

// Process-wide state made on first use (the pools, the statistics' rows)
// is not a thread's: made here, on the paths the threads take, before the
// count starts.
void WarmUp() {
  const std::string records = payloads::Make(payloads::Kind::kRecords, 8192);
  Send(records);
  Send(payloads::Make(payloads::Kind::kRandom, 8192));
  ASSERT_EQ(Receive(GzipPieces(records)), records.size());
}

size_t HeldSince(size_t before) {
  const size_t now = HeapInUse();
  return now > before ? now - before : 0;
}

// With the defaults, the byte cap cannot hold the one message's writer or
// the buffer of the stored stream it was sent as at their size: both are
// pooled without their buffers.
TEST_F(KeptMemory, AThreadThatSentA64MiBIncompressibleMessageKeepsAtMost8MiB) {
  constexpr size_t kMaxKept = 8 * kMiB;
  const std::string& message = Incompressible();
  WarmUp();
  const size_t before = HeapInUse();
  ParkedThreads parked;
  parked.Park([&] { EXPECT_EQ(Send(message), 0) << "it shrank"; });
  const size_t kept = HeldSince(before);
  std::printf("a thread that sent 64 MiB of random bytes keeps %zu bytes\n",
              kept);
  EXPECT_LE(kept, kMaxKept);
}

// One after another, so that at most one thread's message is in memory at
// a time; each stays alive, idle, with what the library kept of its
// messages. The sent message is skipped as incompressible, so that 64 of
// them take no compressing; a skipped message is stored in the same
// buffers as one that did not shrink.
TEST_F(KeptMemory, IdleThreadsHoldAtMostThePoolsCapAndAFixedPartEach) {
  Options options = GetOptions();
  options.skip_incompressible = true;
  options.max_pooled_bytes = 16 * kMiB;
  ASSERT_TRUE(Configure(options).ok());
  const std::string& sent = Incompressible();
  // Text: its stream, 1.2 MiB, is of a size a thread's own buffer keeps.
  const std::vector<std::string> received =
      GzipPieces(payloads::Make(payloads::Kind::kProse, kReceivedBytes));
  WarmUp();
  const size_t before = HeapInUse();
  const uint64_t pooled_before = GetPoolStats().pooled_bytes;
  ParkedThreads parked;
  size_t held = 0;
  for (int threads = 1; threads <= kThreads; ++threads) {
    parked.Park([&] {
      EXPECT_EQ(Send(sent), 0) << "it shrank";
      EXPECT_EQ(Receive(received), kReceivedBytes);
    });
    held = HeldSince(before);
    const size_t bound =
        options.max_pooled_bytes +
        threads * (kFixedBytesPerThread + kHarnessBytesPerThread);
    // Stops at the first thread past the bound: a thread that keeps its
    // message keeps 64 MiB, and 64 of them would not fit in memory.
    ASSERT_LE(held, bound) << "after " << threads << " threads; "
                           << ToString(GetPoolStats());
  }
  // The pools' part is what they count; the rest is each thread's.
  const PoolStats stats = GetPoolStats();
  EXPECT_LE(stats.pooled_bytes, options.max_pooled_bytes);
  const uint64_t pooled = stats.pooled_bytes > pooled_before
                              ? stats.pooled_bytes - pooled_before
                              : 0;
  const size_t per_thread = (held > pooled ? held - pooled : 0) / kThreads;
  std::printf(
      "%d idle threads hold %zu bytes: %llu pooled, and %zu per thread\n",
      kThreads, held, static_cast<unsigned long long>(pooled), per_thread);
  EXPECT_LE(per_thread, kFixedBytesPerThread + kHarnessBytesPerThread);
}

}  // namespace
}  // namespace pooled_gzip::internal
