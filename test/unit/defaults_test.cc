// A fresh process runs on Options{}: every setting and pool limit it starts
// with is what Configure(Options{}) sets. CTest runs each case in a process
// of its own, so each one starts fresh.

#include <gtest/gtest.h>

#include "codec/codec.h"
#include "codec/pools.h"
#include "codec/settings.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip::internal {
namespace {

// Everything a message or a pool reads, with the pools' generations left
// out: Configure counts those, and they only date checkouts.
struct Effective {
  Options options;
  CompressSettings compress;
  DecompressSettings decompress;
  PoolLimits writer_limits;
  PoolLimits reader_limits;
  PoolLimits buffer_limits;
  CompressOptions gzip_writer;
  CompressOptions zlib_writer;
  InflaterKey gzip_reader;
  InflaterKey zlib_reader;
};

Effective Read() {
  Effective now;
  now.options = GetOptions();
  now.compress = CurrentCompressSettings();
  now.compress.settings_generation = 0;
  now.decompress = CurrentDecompressSettings();
  now.decompress.settings_generation = 0;
  now.writer_limits = Writers().limits();
  now.reader_limits = Readers().limits();
  now.buffer_limits = Buffers().limits();
  now.gzip_writer = ConfiguredOptions(Format::kGzip, Skipping::kAsConfigured);
  now.gzip_writer.settings_generation = 0;
  now.zlib_writer =
      ConfiguredOptions(Format::kDeflate, Skipping::kAsConfigured);
  now.zlib_writer.settings_generation = 0;
  now.gzip_reader = ConfiguredReader(Format::kGzip).key;
  now.zlib_reader = ConfiguredReader(Format::kDeflate).key;
  return now;
}

void ExpectSameOptions(const Options& a, const Options& b) {
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.level, b.level);
  EXPECT_EQ(a.decoder, b.decoder);
  EXPECT_EQ(a.exact_zlib_refusals, b.exact_zlib_refusals);
  EXPECT_EQ(a.skip_incompressible, b.skip_incompressible);
  EXPECT_EQ(a.min_compress_bytes, b.min_compress_bytes);
  EXPECT_EQ(a.max_decompressed_bytes, b.max_decompressed_bytes);
  EXPECT_EQ(a.max_idle_contexts_per_thread, b.max_idle_contexts_per_thread);
  EXPECT_EQ(a.max_pooled_bytes, b.max_pooled_bytes);
}

void ExpectSameLimits(const PoolLimits& a, const PoolLimits& b) {
  EXPECT_EQ(a.max_idle_per_thread_per_key, b.max_idle_per_thread_per_key);
  EXPECT_EQ(a.max_pooled_bytes, b.max_pooled_bytes);
}

void ExpectSameWriter(const CompressOptions& a, const CompressOptions& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.level, b.level);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.max_output_bytes, b.max_output_bytes);
  EXPECT_EQ(a.skip_incompressible, b.skip_incompressible);
  EXPECT_EQ(a.min_input_bytes, b.min_input_bytes);
}

void ExpectSame(const Effective& a, const Effective& b) {
  ExpectSameOptions(a.options, b.options);
  EXPECT_EQ(a.compress.backend, b.compress.backend);
  EXPECT_EQ(a.compress.level, b.compress.level);
  EXPECT_EQ(a.compress.skip_incompressible, b.compress.skip_incompressible);
  EXPECT_EQ(a.compress.min_compress_bytes, b.compress.min_compress_bytes);
  EXPECT_EQ(a.decompress.cap, b.decompress.cap);
  EXPECT_EQ(a.decompress.gzip_decoder, b.decompress.gzip_decoder);
  EXPECT_EQ(a.decompress.deflate_decoder, b.decompress.deflate_decoder);
  EXPECT_EQ(a.decompress.strictness, b.decompress.strictness);
  ExpectSameLimits(a.writer_limits, b.writer_limits);
  ExpectSameLimits(a.reader_limits, b.reader_limits);
  ExpectSameLimits(a.buffer_limits, b.buffer_limits);
  ExpectSameWriter(a.gzip_writer, b.gzip_writer);
  ExpectSameWriter(a.zlib_writer, b.zlib_writer);
  EXPECT_EQ(a.gzip_reader, b.gzip_reader);
  EXPECT_EQ(a.zlib_reader, b.zlib_reader);
}

TEST(Defaults, AFreshProcessRunsOnOptionsAsConfigureSetsThem) {
  const Effective fresh = Read();
  ASSERT_TRUE(Configure(Options{}).ok());
  const Effective configured = Read();
  ExpectSame(fresh, configured);
}

// The same, field by field against Options{}, so that a default both sides
// lost would show too.
TEST(Defaults, AFreshProcessHasOptionsDefaults) {
  const Options defaults;
  const Effective fresh = Read();
  ExpectSameOptions(fresh.options, defaults);
  EXPECT_EQ(fresh.compress.backend, defaults.backend);
  EXPECT_EQ(fresh.compress.level, defaults.level);
  EXPECT_EQ(fresh.decompress.gzip_decoder, kDefaultGzipDecoder);
  EXPECT_EQ(fresh.decompress.deflate_decoder, kDefaultDeflateDecoder);
  EXPECT_EQ(fresh.decompress.strictness, Strictness::kDecoder);
  EXPECT_EQ(fresh.decompress.cap, kDerivedCapFactor * kGrpcDefaultMaxReceive);
  for (const PoolLimits& limits :
       {fresh.writer_limits, fresh.reader_limits, fresh.buffer_limits}) {
    EXPECT_EQ(limits.max_idle_per_thread_per_key,
              defaults.max_idle_contexts_per_thread);
    EXPECT_EQ(limits.max_pooled_bytes, defaults.max_pooled_bytes);
  }
}

// The codec's own defaults, for callers that pass none, are the product's.
TEST(Defaults, TheCodecsDefaultsAreTheProducts) {
  const CompressOptions writer;
  EXPECT_EQ(writer.backend, Options().backend);
  EXPECT_EQ(writer.level, Options().level);
}

}  // namespace
}  // namespace pooled_gzip::internal
