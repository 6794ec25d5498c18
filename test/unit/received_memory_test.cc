// Received messages hold their size: what the core codec inflates stays in
// gRPC's slices for as long as the application keeps the message, so a
// slice must not keep an allocation far larger than what it holds. A
// deflate message carries no size; gzip's trailer gives one.

#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "heap_in_use.h"
#include "message_codec.h"
#include "payloads.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::internal {
namespace {

using test_support::HeapInUse;

constexpr int kMessages = 200;
constexpr size_t kMessageBytes = 64 << 10;

grpc_slice_buffer OneSlice(const std::string& bytes) {
  grpc_slice_buffer buffer;
  grpc_slice_buffer_init(&buffer);
  grpc_slice_buffer_add(
      &buffer, grpc_slice_from_copied_buffer(bytes.data(), bytes.size()));
  return buffer;
}

class ReceivedMemoryTest
    : public testing::TestWithParam<grpc_compression_algorithm> {
 protected:
  static void SetUpTestSuite() { grpc_init(); }
  void SetUp() override { ASSERT_TRUE(InstallCoreCodec()); }
  static void TearDownTestSuite() { grpc_shutdown(); }
};

TEST_P(ReceivedMemoryTest, KeptMessagesHoldAtMostAQuarterMore) {
  if (test_support::kHeapCountedBySizeClass) {
    GTEST_SKIP() << "the sanitizer's allocator counts whole size classes";
  }
  const grpc_compression_algorithm algorithm = GetParam();
  const std::string message =
      payloads::Make(payloads::Kind::kRecords, kMessageBytes);
  grpc_slice_buffer plain = OneSlice(message);
  grpc_slice_buffer stream;
  grpc_slice_buffer_init(&stream);
  ASSERT_EQ(grpc_msg_compress(algorithm, &plain, &stream), 1);
  grpc_slice_buffer_destroy(&plain);
  std::string wire;
  for (size_t i = 0; i < stream.count; ++i) {
    wire.append(
        reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(stream.slices[i])),
        GRPC_SLICE_LENGTH(stream.slices[i]));
  }
  grpc_slice_buffer_destroy(&stream);

  // Received as the transport delivers it, one slice per message, and kept.
  std::vector<grpc_slice_buffer> kept(kMessages);
  const size_t before = HeapInUse();
  for (grpc_slice_buffer& received : kept) {
    grpc_slice_buffer input = OneSlice(wire);
    grpc_slice_buffer_init(&received);
    ASSERT_EQ(grpc_msg_decompress(algorithm, &input, &received), 1);
    ASSERT_EQ(received.length, message.size());
    grpc_slice_buffer_destroy(&input);
  }
  const double ratio = static_cast<double>(HeapInUse() - before) /
                       (static_cast<double>(kMessages) * message.size());
  std::cout << "  " << kMessages << " received "
            << (algorithm == GRPC_COMPRESS_GZIP ? "gzip" : "deflate")
            << " messages of 64 KiB hold " << ratio << "x their size\n";
  EXPECT_LE(ratio, 1.25);
  for (grpc_slice_buffer& received : kept) grpc_slice_buffer_destroy(&received);
}

INSTANTIATE_TEST_SUITE_P(BothFormats, ReceivedMemoryTest,
                         testing::Values(GRPC_COMPRESS_GZIP,
                                         GRPC_COMPRESS_DEFLATE));

}  // namespace
}  // namespace pooled_gzip::internal
