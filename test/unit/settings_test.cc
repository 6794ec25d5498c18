// The process-wide settings' one entry point, Configure, and what it
// publishes: each direction's settings, the decoders, the pools' limits,
// and the backend names Options is read from.

#include "codec/settings.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "codec/backend_table.h"
#include "codec/codec.h"
#include "codec/pools.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip::internal {
namespace {

TEST(Configure, EveryBackendAndLevelRoundTrips) {
  const Options original = GetOptions();
  EXPECT_EQ(Options().backend, Backend::kLibdeflate);  // the default
  for (Backend backend : kAllBackends) {
    for (int level : {kDefaultLevel, 1, 3}) {
      Options options;
      options.backend = backend;
      options.level = level;
      options.max_decompressed_bytes = 1000 + level;
      options.max_idle_contexts_per_thread = 4 + level;
      options.max_pooled_bytes = 5000 + level;
      options.decoder = backend;
      options.skip_incompressible = level == 1;
      options.min_compress_bytes = 100 + level;
      options.exact_zlib_refusals = level != 1;
      ASSERT_TRUE(Configure(options).ok());
      const Options applied = GetOptions();
      EXPECT_EQ(applied.backend, backend);
      EXPECT_EQ(applied.level, level);
      EXPECT_EQ(applied.max_decompressed_bytes, 1000u + level);
      EXPECT_EQ(applied.max_idle_contexts_per_thread, 4u + level);
      EXPECT_EQ(applied.max_pooled_bytes, 5000u + level);
      EXPECT_EQ(applied.decoder, backend);
      EXPECT_EQ(applied.skip_incompressible, level == 1);
      EXPECT_EQ(applied.min_compress_bytes, 100u + level);
      EXPECT_EQ(applied.exact_zlib_refusals, level != 1);
      const CompressSettings compress = CurrentCompressSettings();
      EXPECT_EQ(compress.backend, backend);
      EXPECT_EQ(compress.level, level);
      EXPECT_EQ(compress.skip_incompressible, level == 1);
      EXPECT_EQ(compress.min_compress_bytes, 100u + level);
      const DecompressSettings decompress = CurrentDecompressSettings();
      EXPECT_EQ(decompress.cap, 1000u + level);
      EXPECT_EQ(decompress.gzip_decoder, backend);
      EXPECT_EQ(decompress.deflate_decoder, backend);
      EXPECT_EQ(decompress.strictness, level != 1
                                           ? Strictness::kExactZlibRefusals
                                           : Strictness::kDecoder);
      for (Format format : {Format::kGzip, Format::kDeflate}) {
        const InflaterKey reader = ConfiguredReader(format).key;
        EXPECT_EQ(reader.backend, backend);
        EXPECT_EQ(reader.format, format);
        // zlib's readers are one kind, whatever the strictness.
        EXPECT_EQ(reader.strictness, backend == Backend::kZlib
                                         ? Strictness::kDecoder
                                         : decompress.strictness);
      }
      EXPECT_EQ(ConfiguredOptions(Format::kGzip).backend, backend);
      // Skipping applies only where the caller asks for it.
      EXPECT_FALSE(ConfiguredOptions(Format::kGzip).skip_incompressible);
      EXPECT_EQ(ConfiguredOptions(Format::kGzip).min_input_bytes, 0u);
      EXPECT_EQ(ConfiguredOptions(Format::kGzip, Skipping::kAsConfigured)
                    .min_input_bytes,
                100u + level);
      EXPECT_EQ(Writers().limits().max_idle_per_thread_per_key, 4u + level);
      EXPECT_EQ(Readers().limits().max_pooled_bytes, 5000u + level);
    }
  }
  const Options last = GetOptions();
  Options bad;
  bad.backend = Backend::kZlib;
  bad.level = 10;  // no such zlib level
  bad.max_decompressed_bytes = 1;
  bad.max_idle_contexts_per_thread = 1;
  bad.max_pooled_bytes = 1;
  bad.decoder = Backend::kZlib;
  bad.skip_incompressible = !last.skip_incompressible;
  bad.min_compress_bytes = 1;
  bad.exact_zlib_refusals = !last.exact_zlib_refusals;
  // Every field of the refused call differs from what is in force, so that
  // any one of them taking effect shows below.
  ASSERT_NE(bad.backend, last.backend);
  ASSERT_NE(bad.max_idle_contexts_per_thread,
            last.max_idle_contexts_per_thread);
  EXPECT_EQ(Configure(bad).code(), absl::StatusCode::kInvalidArgument);
  // Nothing of the refused call took effect: not in the options read back,
  // not in the settings messages use, not in the caps the pools apply.
  const Options unchanged = GetOptions();
  EXPECT_EQ(unchanged.backend, last.backend);
  EXPECT_EQ(unchanged.level, last.level);
  EXPECT_EQ(unchanged.max_decompressed_bytes, last.max_decompressed_bytes);
  EXPECT_EQ(unchanged.max_idle_contexts_per_thread,
            last.max_idle_contexts_per_thread);
  EXPECT_EQ(unchanged.max_pooled_bytes, last.max_pooled_bytes);
  EXPECT_EQ(unchanged.decoder, last.decoder);
  EXPECT_EQ(unchanged.skip_incompressible, last.skip_incompressible);
  EXPECT_EQ(unchanged.min_compress_bytes, last.min_compress_bytes);
  EXPECT_EQ(unchanged.exact_zlib_refusals, last.exact_zlib_refusals);
  const CompressSettings compress = CurrentCompressSettings();
  EXPECT_EQ(compress.backend, last.backend);
  EXPECT_EQ(compress.level, last.level);
  EXPECT_EQ(compress.skip_incompressible, last.skip_incompressible);
  EXPECT_EQ(compress.min_compress_bytes, last.min_compress_bytes);
  const DecompressSettings decompress = CurrentDecompressSettings();
  EXPECT_EQ(decompress.cap, *last.max_decompressed_bytes);
  EXPECT_EQ(decompress.gzip_decoder, *last.decoder);
  EXPECT_EQ(decompress.strictness, last.exact_zlib_refusals
                                       ? Strictness::kExactZlibRefusals
                                       : Strictness::kDecoder);
  EXPECT_EQ(ConfiguredOptions(Format::kGzip).backend, last.backend);
  for (const PoolLimits& limits : {Writers().limits(), Readers().limits()}) {
    EXPECT_EQ(limits.max_idle_per_thread_per_key,
              last.max_idle_contexts_per_thread);
    EXPECT_EQ(limits.max_pooled_bytes, last.max_pooled_bytes);
  }
  ASSERT_TRUE(Configure(original).ok());
}

// A Backend cast from a number none of its values has would fail every
// message it reached, so Configure refuses it whichever field holds it.
TEST(Configure, RefusesABackendOrDecoderThatIsNoBackend) {
  const Options original = GetOptions();
  const DecompressSettings original_decompress = CurrentDecompressSettings();
  const Backend unknown = static_cast<Backend>(3);
  Options bad_decoder = original;
  bad_decoder.decoder = unknown;
  Options bad_backend = original;
  bad_backend.backend = unknown;
  bad_backend.level = kDefaultLevel;
  for (const Options& bad : {bad_decoder, bad_backend}) {
    EXPECT_EQ(Configure(bad).code(), absl::StatusCode::kInvalidArgument);
    const Options unchanged = GetOptions();
    EXPECT_EQ(unchanged.backend, original.backend);
    EXPECT_EQ(unchanged.decoder, original.decoder);
    const DecompressSettings decompress = CurrentDecompressSettings();
    EXPECT_EQ(decompress.gzip_decoder, original_decompress.gzip_decoder);
    EXPECT_EQ(decompress.deflate_decoder, original_decompress.deflate_decoder);
    EXPECT_EQ(CurrentCompressSettings().backend, original.backend);
  }
  ASSERT_TRUE(Configure(original).ok());
}

// Every other field takes any value of its type: the edges mean something.
TEST(Configure, AcceptsEveryValueOfTheOtherFields) {
  const Options original = GetOptions();
  Options options = original;
  options.max_idle_contexts_per_thread = 0;  // pools nothing per thread
  options.max_pooled_bytes = 0;              // pools nothing at all
  options.max_decompressed_bytes = 0;        // only empty messages inflate
  options.min_compress_bytes = std::numeric_limits<size_t>::max();
  EXPECT_TRUE(Configure(options).ok());
  options.max_idle_contexts_per_thread = std::numeric_limits<size_t>::max();
  options.max_pooled_bytes = std::numeric_limits<size_t>::max();
  options.max_decompressed_bytes = std::numeric_limits<size_t>::max();
  options.min_compress_bytes = 0;
  EXPECT_TRUE(Configure(options).ok());
  ASSERT_TRUE(Configure(original).ok());
}

TEST(Configure, TheDecoderDefaultsToTheFastestPerFormat) {
  const Options original = GetOptions();
  Options options = original;
  options.backend = Backend::kZlib;
  options.decoder.reset();
  ASSERT_TRUE(Configure(options).ok());
  const DecompressSettings decompress = CurrentDecompressSettings();
  // Whoever compresses: docs/backends.md, "Decoders", measures each on each.
  EXPECT_EQ(decompress.gzip_decoder, Backend::kLibdeflate);
  EXPECT_EQ(decompress.deflate_decoder, Backend::kIsal);
  EXPECT_EQ(ConfiguredReader(Format::kGzip).key.backend, Backend::kLibdeflate);
  // And by its own rules, in one pass.
  EXPECT_EQ(ConfiguredReader(Format::kGzip).key.strictness,
            Strictness::kDecoder);
  ASSERT_TRUE(Configure(original).ok());
}

TEST(Configure, MinimumSizesSaturate) {
  const Options original = GetOptions();
  Options options = original;
  options.min_compress_bytes = std::numeric_limits<size_t>::max();
  ASSERT_TRUE(Configure(options).ok());
  EXPECT_EQ(CurrentCompressSettings().min_compress_bytes,
            std::numeric_limits<size_t>::max());
  ASSERT_TRUE(Configure(original).ok());
}

TEST(Configure, BackendNamesParseInAnyCase) {
  EXPECT_EQ(ParseBackend("ISAL"), Backend::kIsal);
  EXPECT_EQ(ParseBackend("LibDeflate"), Backend::kLibdeflate);
  EXPECT_EQ(ParseBackend("zlib"), Backend::kZlib);
  EXPECT_EQ(ParseBackend("zstd"), std::nullopt);
}

}  // namespace
}  // namespace pooled_gzip::internal
