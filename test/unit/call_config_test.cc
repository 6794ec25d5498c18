// Layer 3 without a network: what the plugin reads from channel arguments,
// and the receive limits it notes from them. Configure's own tests are in
// settings_test.cc.

#include "glue/call_config.h"

#include <grpc/compression.h>
#include <grpcpp/support/channel_arguments.h>
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>

#include "codec/settings.h"
#include "pooled_gzip/channel_args.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip::internal {
namespace {

ChannelConfig Read(const grpc::ChannelArguments& args) {
  return ReadChannelConfig(args.c_channel_args());
}

TEST(ReadChannelConfig, Defaults) {
  const ChannelConfig config = Read(grpc::ChannelArguments());
  EXPECT_TRUE(config.enabled);
  EXPECT_FALSE(config.max_receive_message_length.has_value());
}

TEST(ReadChannelConfig, ReadsGrpcAndPluginKeys) {
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_DEFLATE);
  args.SetMaxReceiveMessageSize(-1);
  args.SetInt(kArgEnabled, 0);
  const ChannelConfig config = Read(args);
  EXPECT_FALSE(config.enabled);
  EXPECT_EQ(config.max_receive_message_length, -1);
  args.SetMaxReceiveMessageSize(4096);
  EXPECT_EQ(Read(args).max_receive_message_length, 4096);
}

TEST(ReadChannelConfig, IgnoresMalformedPluginValues) {
  grpc::ChannelArguments args;
  args.SetInt(kArgEnabled, 2);
  EXPECT_TRUE(Read(args).enabled);
  args.SetString(kArgEnabled, "no");
  EXPECT_TRUE(Read(args).enabled);
}

// One channel's value for a process-wide setting would change every
// channel's; Configure is the one way to set them.
TEST(ReadChannelConfig, ProcessWideKeysOfEarlierVersionsChangeNothing) {
  const Options before = GetOptions();
  grpc::ChannelArguments args;
  args.SetInt("pooled_gzip.level", 1);
  args.SetInt("pooled_gzip.max_idle_contexts_per_thread", 7);
  args.SetInt("pooled_gzip.max_pooled_bytes", 12345);
  const ChannelConfig config = Read(args);
  NoteReceiveLimitOf(config);
  EXPECT_TRUE(config.enabled);
  const Options after = GetOptions();
  EXPECT_EQ(after.level, before.level);
  EXPECT_EQ(after.max_idle_contexts_per_thread,
            before.max_idle_contexts_per_thread);
  EXPECT_EQ(after.max_pooled_bytes, before.max_pooled_bytes);
}

// Each test case runs in a process of its own (gtest_discover_tests), so
// the limits noted here start from none.
TEST(NoteReceiveLimitOf, OnlyEnabledFiniteLimitsRaiseTheDerivedCap) {
  constexpr size_t kDefaultCap = 2 * (size_t{4} << 20);
  EXPECT_EQ(CurrentDecompressSettings().cap, kDefaultCap);
  ChannelConfig unlimited;
  unlimited.max_receive_message_length = -1;
  NoteReceiveLimitOf(unlimited);
  EXPECT_EQ(CurrentDecompressSettings().cap, kDefaultCap);
  ChannelConfig disabled;
  disabled.enabled = false;
  disabled.max_receive_message_length = 64 << 20;
  NoteReceiveLimitOf(disabled);
  EXPECT_EQ(CurrentDecompressSettings().cap, kDefaultCap);
  ChannelConfig smaller;
  smaller.max_receive_message_length = 1 << 20;  // gRPC's default stays
  NoteReceiveLimitOf(smaller);
  EXPECT_EQ(CurrentDecompressSettings().cap, kDefaultCap);
  ChannelConfig larger;
  larger.max_receive_message_length = 16 << 20;
  NoteReceiveLimitOf(larger);
  EXPECT_EQ(CurrentDecompressSettings().cap, size_t{32} << 20);
  NoteReceiveLimitOf(smaller);  // the largest noted stays
  EXPECT_EQ(CurrentDecompressSettings().cap, size_t{32} << 20);
}

TEST(NoteReceiveLimitOf, AnExplicitCapWins) {
  const Options original = GetOptions();
  Options options = original;
  options.max_decompressed_bytes = 123;
  ASSERT_TRUE(Configure(options).ok());
  ChannelConfig larger;
  larger.max_receive_message_length = 16 << 20;
  NoteReceiveLimitOf(larger);
  EXPECT_EQ(CurrentDecompressSettings().cap, 123u);
  options.max_decompressed_bytes = std::numeric_limits<size_t>::max();
  ASSERT_TRUE(Configure(options).ok());
  EXPECT_EQ(CurrentDecompressSettings().cap,
            std::numeric_limits<size_t>::max());
  ASSERT_TRUE(Configure(original).ok());
  EXPECT_EQ(CurrentDecompressSettings().cap, size_t{32} << 20);
}

}  // namespace
}  // namespace pooled_gzip::internal
