// The skip options and the codec's own counters, on the codec layer: which
// messages Options::skip_incompressible judges not worth compressing (none
// of the realistic payloads, at any size; random and already-compressed
// bytes), that skipped and short messages go uncompressed and are counted,
// and that codec time and bytes saved move with the messages.

#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codec/backend_table.h"
#include "codec/codec.h"
#include "codec/compressibility.h"
#include "payloads.h"
#include "plain_zlib.h"
#include "pooled_gzip/pool_stats.h"
#include "traffic_totals.h"

namespace pooled_gzip::internal {
namespace {

using payloads::Kind;

bool Incompressible(absl::string_view bytes) {
  return LooksIncompressible({&bytes, 1});
}

// Sizes from the smallest judged to past the benchmarks' largest, with odd
// ones between so that sample stretches fall everywhere.
const std::vector<size_t>& JudgedSizes() {
  static const auto* sizes = new std::vector<size_t>{
      64, 100, 511, 512, 513, 1024, 4000, 8192, 65536, 100000, 1 << 20};
  return *sizes;
}

TEST(LooksIncompressible, NeverForRealisticPayloads) {
  for (Kind kind : payloads::AllKinds()) {
    if (kind == Kind::kRandom) continue;
    for (size_t size : JudgedSizes()) {
      for (uint32_t seed : {0u, 1u, 2u}) {
        EXPECT_FALSE(Incompressible(payloads::Make(kind, size, seed)))
            << payloads::KindName(kind) << " " << size << " seed " << seed;
      }
    }
  }
}

TEST(LooksIncompressible, ForRandomBytesOfEverySize) {
  for (size_t size : JudgedSizes()) {
    for (uint32_t seed : {0u, 1u, 2u}) {
      EXPECT_TRUE(Incompressible(payloads::Make(Kind::kRandom, size, seed)))
          << size << " seed " << seed;
    }
  }
}

TEST(LooksIncompressible, ForCompressedData) {
  // Deflate output of every realistic kind: what a message carrying a
  // .gz, a PNG's IDAT or a zip member holds. Its first KiB is not judged
  // so: the block header and the first codes of very repetitive input (a
  // twenty-word vocabulary, say) skew its bytes (docs/reference.md, "Skipping
  // what does not compress").
  for (Kind kind : payloads::AllKinds()) {
    const std::string compressed = plain_zlib::Deflate(
        payloads::Make(kind, 2 << 20), Format::kGzip, /*level=*/9);
    for (size_t size : {size_t{4096}, size_t{65536}, compressed.size()}) {
      EXPECT_TRUE(Incompressible(compressed.substr(0, size)))
          << payloads::KindName(kind) << " deflated, first " << size;
    }
  }
  // A gzip file every Debian system has.
  std::ifstream file("/usr/share/doc/libc6/NEWS.gz", std::ios::binary);
  ASSERT_TRUE(file) << "no /usr/share/doc/libc6/NEWS.gz";
  const std::string news((std::istreambuf_iterator<char>(file)),
                         std::istreambuf_iterator<char>());
  ASSERT_GT(news.size(), 65536u);
  EXPECT_TRUE(Incompressible(news));
  EXPECT_TRUE(Incompressible(news.substr(0, 1024)));
}

TEST(LooksIncompressible, NotWhenPartOfTheMessageCompresses) {
  for (size_t half : {size_t{512}, size_t{32768}, size_t{512 << 10}}) {
    const std::string text = payloads::Make(Kind::kProse, half);
    const std::string random = payloads::Make(Kind::kRandom, half);
    EXPECT_FALSE(Incompressible(text + random)) << half;
    EXPECT_FALSE(Incompressible(random + text)) << half;
  }
}

TEST(LooksIncompressible, JudgesTheConcatenationOfPieces) {
  const std::string random = payloads::Make(Kind::kRandom, 65536);
  const std::string text = payloads::Make(Kind::kProse, 65536);
  for (const std::string* message : {&random, &text}) {
    std::vector<absl::string_view> pieces;
    for (size_t at = 0; at < message->size(); at += 1000) {
      pieces.push_back(absl::string_view(*message).substr(at, 1000));
    }
    EXPECT_EQ(LooksIncompressible(pieces), message == &random);
  }
}

TEST(LooksIncompressible, NotForMessagesTooShortToJudge) {
  EXPECT_FALSE(Incompressible(""));
  EXPECT_FALSE(Incompressible(payloads::Make(Kind::kRandom, 63)));
}

CompressOptions SkipOptions(bool skip_incompressible, size_t min_input_bytes) {
  CompressOptions options;
  options.backend = Backend::kLibdeflate;
  options.skip_incompressible = skip_incompressible;
  options.min_input_bytes = min_input_bytes;
  return options;
}

TEST(Compress, SkipsIncompressibleMessagesAndCountsThem) {
  using test_support::Totals;
  const std::string random = payloads::Make(Kind::kRandom, 65536);
  const auto before = Totals(/*compressing=*/true, "gzip", "libdeflate");
  std::string out = "untouched";
  StringSink sink(&out);
  const absl::string_view input = random;
  EXPECT_EQ(Compress({&input, 1}, SkipOptions(true, 0), &sink).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(out, "untouched");
  const auto after = Totals(/*compressing=*/true, "gzip", "libdeflate");
  EXPECT_EQ(after.skipped - before.skipped, 1u);
  EXPECT_EQ(after.skipped_bytes - before.skipped_bytes, random.size());
  EXPECT_EQ(after.messages, before.messages);
  EXPECT_EQ(after.declined, before.declined);
  EXPECT_EQ(after.failed, before.failed);
  EXPECT_GT(after.codec_nanoseconds, before.codec_nanoseconds);
  // Off, the same message is compressed.
  EXPECT_TRUE(CompressToString(random, SkipOptions(false, 0), &out).ok());
  EXPECT_EQ(Totals(true, "gzip", "libdeflate").messages, before.messages + 1);
}

TEST(Compress, SkipsMessagesUnderTheMinimumSize) {
  using test_support::Totals;
  const std::string text = payloads::Make(Kind::kProse, 1000);
  const auto before = Totals(/*compressing=*/true, "gzip", "libdeflate");
  std::string out;
  EXPECT_EQ(CompressToString(text, SkipOptions(false, 1001), &out).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(CompressToString(text, SkipOptions(false, 1000), &out).ok());
  EXPECT_TRUE(CompressToString(text, SkipOptions(true, 0), &out).ok());
  const auto after = Totals(/*compressing=*/true, "gzip", "libdeflate");
  EXPECT_EQ(after.skipped - before.skipped, 1u);
  EXPECT_EQ(after.skipped_bytes - before.skipped_bytes, text.size());
  EXPECT_EQ(after.messages - before.messages, 2u);
}

TEST(Traffic, CodecTimeAndBytesSavedMoveWithMessages) {
  using test_support::Totals;
  const std::string text = payloads::Make(Kind::kRecords, 65536);
  for (Backend backend : kAllBackends) {
    const std::string name(BackendName(backend));
    CompressOptions options;
    options.backend = backend;
    const auto compress_before = Totals(true, "gzip", name);
    const auto decompress_before = Totals(false, "gzip", name);
    std::string compressed;
    ASSERT_TRUE(CompressToString(text, options, &compressed).ok());
    std::string inflated;
    ASSERT_TRUE(DecompressToString(compressed, Format::kGzip, text.size(),
                                   &inflated, backend)
                    .ok());
    const auto compress_after = Totals(true, "gzip", name);
    const auto decompress_after = Totals(false, "gzip", name);
    EXPECT_EQ(compress_after.bytes_saved - compress_before.bytes_saved,
              text.size() - compressed.size())
        << name;
    EXPECT_EQ(decompress_after.bytes_saved - decompress_before.bytes_saved,
              text.size() - compressed.size())
        << name;
    EXPECT_GT(compress_after.codec_nanoseconds,
              compress_before.codec_nanoseconds)
        << name;
    EXPECT_GT(decompress_after.codec_nanoseconds,
              decompress_before.codec_nanoseconds)
        << name;
  }
}

TEST(Traffic, AStreamLargerThanItsMessageSavesNothing) {
  using test_support::Totals;
  // Raw mode compresses what it is given: random bytes grow.
  const std::string random = payloads::Make(Kind::kRandom, 4096);
  const auto before = Totals(true, "gzip", "zlib");
  std::string compressed;
  CompressOptions zlib;
  zlib.backend = Backend::kZlib;  // the row Totals reads
  ASSERT_TRUE(CompressToString(random, zlib, &compressed).ok());
  ASSERT_GT(compressed.size(), random.size());
  const auto after = Totals(true, "gzip", "zlib");
  EXPECT_EQ(after.messages - before.messages, 1u);
  EXPECT_EQ(after.bytes_saved, before.bytes_saved);
}

}  // namespace
}  // namespace pooled_gzip::internal
