// Layer 3's decision, without a network: what the plugin reads from channel
// arguments, and which calls it compresses given their initial metadata.

#include "grpc/call_config.h"

#include <grpc/compression.h>
#include <grpcpp/support/channel_arguments.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "codec/codec.h"
#include "grpc/core_codec.h"
#include "pooled_gzip/channel_args.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::internal {
namespace {

using Metadata = std::multimap<std::string, std::string>;

constexpr char kRequestKey[] = GRPC_COMPRESSION_REQUEST_ALGORITHM_MD_KEY;

ChannelConfig Read(const grpc::ChannelArguments& args) {
  return ReadChannelConfig(args.c_channel_args());
}

ChannelConfig WithDefault(grpc_compression_algorithm algorithm) {
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(algorithm);
  return Read(args);
}

TEST(ReadChannelConfig, DefaultsMatchCore) {
  const ChannelConfig config = Read(grpc::ChannelArguments());
  EXPECT_EQ(config.default_algorithm, GRPC_COMPRESS_NONE);
  EXPECT_EQ(config.enabled_algorithms, ~uint32_t{0});
  EXPECT_TRUE(config.per_message_compression);
  EXPECT_FALSE(config.default_level_set);
  EXPECT_TRUE(config.enabled);
  EXPECT_FALSE(config.level.has_value());
  EXPECT_FALSE(config.max_send_message_length.has_value());
  EXPECT_FALSE(config.max_receive_message_length.has_value());
  EXPECT_FALSE(config.max_idle_per_thread.has_value());
  EXPECT_FALSE(config.max_pooled_bytes.has_value());
}

TEST(ReadChannelConfig, ReadsGrpcAndPluginKeys) {
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_DEFLATE);
  args.SetInt(GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET,
              1 << GRPC_COMPRESS_DEFLATE);
  args.SetInt(GRPC_ARG_ENABLE_PER_MESSAGE_COMPRESSION, 0);
  args.SetInt(GRPC_COMPRESSION_CHANNEL_DEFAULT_LEVEL, GRPC_COMPRESS_LEVEL_LOW);
  args.SetInt(kArgEnabled, 0);
  args.SetInt(kArgLevel, 1);
  args.SetInt(kArgMaxIdlePerThread, 3);
  args.SetInt(kArgMaxPooledBytes, 1 << 20);
  const ChannelConfig config = Read(args);
  EXPECT_EQ(config.default_algorithm, GRPC_COMPRESS_DEFLATE);
  // Core keeps "identity" enabled whatever the bitset says.
  EXPECT_EQ(config.enabled_algorithms,
            (1u << GRPC_COMPRESS_DEFLATE) | (1u << GRPC_COMPRESS_NONE));
  EXPECT_FALSE(config.per_message_compression);
  EXPECT_TRUE(config.default_level_set);
  EXPECT_FALSE(config.enabled);
  EXPECT_EQ(config.level, 1);
  EXPECT_EQ(config.max_idle_per_thread, 3u);
  EXPECT_EQ(config.max_pooled_bytes, size_t{1} << 20);
}

TEST(ReadChannelConfig, IgnoresMalformedPluginValues) {
  grpc::ChannelArguments args;
  args.SetString(kArgLevel, "fast");
  args.SetInt(kArgEnabled, 2);
  args.SetString(kArgMaxPooledBytes, "lots");
  args.SetInt(kArgMaxIdlePerThread, -1);
  const ChannelConfig config = Read(args);
  EXPECT_FALSE(config.level.has_value());
  EXPECT_TRUE(config.enabled);
  EXPECT_FALSE(config.max_pooled_bytes.has_value());
  EXPECT_FALSE(config.max_idle_per_thread.has_value());
}

TEST(ReadChannelConfig, MinimalStackHasNoCompressionFilter) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_MINIMAL_STACK, 1);
  EXPECT_FALSE(Read(args).per_message_compression);
  // The filter's own key wins, as in core's http_filters_plugin.cc.
  args.SetInt(GRPC_ARG_ENABLE_PER_MESSAGE_COMPRESSION, 1);
  EXPECT_TRUE(Read(args).per_message_compression);
}

TEST(ReadChannelConfig, SizeLimits) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(4096);
  args.SetMaxReceiveMessageSize(-1);
  const ChannelConfig config = Read(args);
  EXPECT_EQ(config.max_send_message_length, 4096);
  EXPECT_EQ(config.max_receive_message_length, -1);
  EXPECT_TRUE(WithinSendLimit(config, 4096));
  EXPECT_FALSE(WithinSendLimit(config, 4097));
  EXPECT_TRUE(WithinSendLimit(ChannelConfig{}, size_t{1} << 40));
}

TEST(ApplyProcessWideArgs, LevelIsProcessWide) {
  const CodecSettings original = CurrentSettings();
  ChannelConfig config;
  config.level = 2;
  ApplyProcessWideArgs(config);
  EXPECT_EQ(CurrentSettings().level, 2);
  config.level = 42;  // not a zlib level: logged, ignored
  ApplyProcessWideArgs(config);
  EXPECT_EQ(CurrentSettings().level, 2);
  ASSERT_TRUE(SetSettings(original).ok());
}

TEST(Configure, EveryBackendAndLevelRoundTrips) {
  const Options original = GetOptions();
  EXPECT_EQ(Options().backend, Backend::kLibdeflate);  // the default
  for (Backend backend :
       {Backend::kZlib, Backend::kLibdeflate, Backend::kIsal}) {
    for (int level : {kDefaultLevel, 1, 3}) {
      Options options;
      options.backend = backend;
      options.level = level;
      options.max_decompressed_bytes = 1000 + level;
      ASSERT_TRUE(Configure(options).ok());
      EXPECT_EQ(GetOptions().backend, backend);
      EXPECT_EQ(GetOptions().level, level);
      EXPECT_EQ(GetOptions().max_decompressed_bytes, 1000u + level);
      EXPECT_EQ(ConfiguredOptions(Format::kGzip).backend, backend);
    }
  }
  Options bad;
  bad.backend = Backend::kIsal;
  bad.level = 4;
  EXPECT_EQ(Configure(bad).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GetOptions().backend, Backend::kIsal);  // unchanged
  ASSERT_TRUE(Configure(original).ok());
}

TEST(ApplyProcessWideArgs, ChangesOnlyTheCapsGiven) {
  const PoolLimits original = GetPoolLimits();
  ChannelConfig config;
  config.max_pooled_bytes = 12345;
  ApplyProcessWideArgs(config);
  EXPECT_EQ(GetPoolLimits().max_pooled_bytes, 12345u);
  EXPECT_EQ(GetPoolLimits().max_idle_per_thread_per_key,
            original.max_idle_per_thread_per_key);
  SetPoolLimits(original);
}

TEST(DecideCallFormat, ChannelDefaultIsMadeExplicit) {
  Metadata metadata;
  EXPECT_EQ(DecideCallFormat(WithDefault(GRPC_COMPRESS_GZIP), &metadata),
            Format::kGzip);
  // Written into the call, so core cannot pick anything else.
  ASSERT_EQ(metadata.count(kRequestKey), 1u);
  EXPECT_EQ(metadata.find(kRequestKey)->second, "gzip");

  Metadata deflate_metadata;
  EXPECT_EQ(
      DecideCallFormat(WithDefault(GRPC_COMPRESS_DEFLATE), &deflate_metadata),
      Format::kZlib);
  EXPECT_EQ(deflate_metadata.find(kRequestKey)->second, "deflate");
}

TEST(DecideCallFormat, NoCompressionLeavesTheCallAlone) {
  Metadata metadata;
  EXPECT_EQ(DecideCallFormat(WithDefault(GRPC_COMPRESS_NONE), &metadata),
            std::nullopt);
  EXPECT_TRUE(metadata.empty());
}

TEST(DecideCallFormat, PerCallAlgorithmWins) {
  Metadata to_none{{kRequestKey, "identity"}};
  EXPECT_EQ(DecideCallFormat(WithDefault(GRPC_COMPRESS_GZIP), &to_none),
            std::nullopt);
  Metadata to_deflate{{kRequestKey, "deflate"}};
  EXPECT_EQ(DecideCallFormat(WithDefault(GRPC_COMPRESS_GZIP), &to_deflate),
            Format::kZlib);
  Metadata to_gzip{{kRequestKey, "gzip"}};
  EXPECT_EQ(DecideCallFormat(WithDefault(GRPC_COMPRESS_NONE), &to_gzip),
            Format::kGzip);
  EXPECT_EQ(to_gzip.count(kRequestKey), 1u);  // not written twice
}

TEST(DecideCallFormat, StepsAsideWhenUncertain) {
  // An algorithm name core would not parse, or two requests at once.
  Metadata unknown{{kRequestKey, "zstd"}};
  EXPECT_EQ(DecideCallFormat(WithDefault(GRPC_COMPRESS_GZIP), &unknown),
            std::nullopt);
  Metadata twice{{kRequestKey, "gzip"}, {kRequestKey, "deflate"}};
  EXPECT_EQ(DecideCallFormat(WithDefault(GRPC_COMPRESS_GZIP), &twice),
            std::nullopt);

  // Disabled on the channel: core falls back to no compression.
  ChannelConfig disabled = WithDefault(GRPC_COMPRESS_GZIP);
  disabled.enabled_algorithms = 1u << GRPC_COMPRESS_NONE;
  Metadata metadata;
  EXPECT_EQ(DecideCallFormat(disabled, &metadata), std::nullopt);
  EXPECT_TRUE(metadata.empty());

  // No compression filter at all.
  ChannelConfig no_filter = WithDefault(GRPC_COMPRESS_GZIP);
  no_filter.per_message_compression = false;
  EXPECT_EQ(DecideCallFormat(no_filter, &metadata), std::nullopt);

  // The plugin switched off.
  ChannelConfig off = WithDefault(GRPC_COMPRESS_GZIP);
  off.enabled = false;
  EXPECT_EQ(DecideCallFormat(off, &metadata), std::nullopt);
  EXPECT_TRUE(metadata.empty());
}

}  // namespace
}  // namespace pooled_gzip::internal
