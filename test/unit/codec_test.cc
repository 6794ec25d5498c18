// Layer 2: the codec, checked against plain zlib in both directions, plus its
// errors, its output limit and its use of the process-wide pool.

#include "codec/codec.h"

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checking_sink.h"
#include "codec/core_zlib_parameters.h"
#include "gtest/gtest.h"
#include "plain_zlib.h"
#include "pooled_gzip/pool_stats.h"
#include "random_inputs.h"

namespace pooled_gzip::internal {
// Found by ADL for the parameterised tests' names.
void PrintTo(Format format, std::ostream* os) { *os << FormatName(format); }

namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;
constexpr size_t kNoLimit = ~size_t{0};

using payloads::RandomBytes;
using payloads::TextLike;
using plain_zlib::Deflate;
using test_support::CheckingSink;

// The cases compress with the zlib backend, whose levels and bytes they
// expect, and read with each format's default decoder.
std::string Compressed(absl::string_view data, Format format,
                       int level = kDefaultLevel) {
  std::string out;
  CompressOptions options;
  options.backend = Backend::kZlib;
  options.format = format;
  options.level = level;
  EXPECT_TRUE(CompressToString(data, options, &out).ok());
  return out;
}

// Returns exactly the hinted size from one scratch buffer, and counts how
// many bytes it was asked for in total. Keeps no output.
class CountingSink final : public ChunkSink {
 public:
  absl::Span<char> NextChunk(size_t size_hint) override {
    scratch_.resize(std::max(scratch_.size(), size_hint));
    requested_ += size_hint;
    return absl::MakeSpan(scratch_.data(), size_hint);
  }
  void CommitChunk(size_t used) override { committed_ += used; }

  size_t requested() const { return requested_; }
  size_t committed() const { return committed_; }

 private:
  std::vector<char> scratch_;
  size_t requested_ = 0;
  size_t committed_ = 0;
};

std::vector<absl::string_view> Split(absl::string_view data, size_t piece) {
  std::vector<absl::string_view> pieces;
  for (size_t i = 0; i < data.size(); i += piece) {
    pieces.push_back(data.substr(i, piece));
  }
  return pieces;
}

// ---------------------------------------------------------------------------
// Round trips, parameterised by format, payload and level.

// A payload of the round trips: its name in test names, and how it is made.
struct Payload {
  const char* name;
  std::string (*make)();
};

const Payload kPayloads[] = {
    {"Empty", [] { return std::string(); }},
    {"OneByte", [] { return std::string("x"); }},
    {"OneKiB", [] { return TextLike(kKiB); }},
    {"OneMiBText", [] { return TextLike(kMiB); }},
    {"Random256KiB", [] { return RandomBytes(256 * kKiB); }},
};

// Readable parameters in test output and CTest names.
void PrintTo(const Payload& payload, std::ostream* os) { *os << payload.name; }

using RoundTripParam = std::tuple<Format, Payload, int>;

class RoundTripTest : public testing::TestWithParam<RoundTripParam> {
 protected:
  Format format() const { return std::get<0>(GetParam()); }
  int level() const { return std::get<2>(GetParam()); }
  const std::string& payload() {
    if (payload_.empty()) payload_ = std::get<1>(GetParam()).make();
    return payload_;
  }

 private:
  std::string payload_;
};

TEST_P(RoundTripTest, OurCompressPlainInflate) {
  const std::string compressed = Compressed(payload(), format(), level());
  std::string inflated;
  ASSERT_TRUE(plain_zlib::InflateOne(compressed, format(), &inflated));
  EXPECT_EQ(inflated, payload());
}

TEST_P(RoundTripTest, PlainDeflateOurDecompress) {
  const std::string compressed = Deflate(payload(), format(), level());
  std::string inflated;
  const absl::Status status =
      DecompressToString(compressed, format(), payload().size(), &inflated);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(inflated, payload());
}

TEST_P(RoundTripTest, OurCompressOurDecompress) {
  // Twice, so the second pass runs on pooled contexts.
  for (int pass = 0; pass < 2; ++pass) {
    const std::string compressed = Compressed(payload(), format(), level());
    std::string inflated;
    const absl::Status status =
        DecompressToString(compressed, format(), kNoLimit, &inflated);
    ASSERT_TRUE(status.ok()) << "pass " << pass << ": " << status;
    EXPECT_EQ(inflated, payload()) << "pass " << pass;
  }
}

TEST_P(RoundTripTest, SmallChunksBothWays) {
  // Chunks of 4 KiB force multi-chunk output for anything but tiny data.
  CompressOptions options;
  options.backend = Backend::kZlib;
  options.format = format();
  options.level = level();
  const absl::string_view input = payload();
  CheckingSink compressed(4 * kKiB);
  ASSERT_TRUE(
      Compress(absl::MakeConstSpan(&input, 1), options, &compressed).ok());
  EXPECT_FALSE(compressed.open());
  std::string inflated;
  ASSERT_TRUE(plain_zlib::InflateOne(compressed.out(), format(), &inflated));
  EXPECT_EQ(inflated, payload());

  const std::string plain = Deflate(payload(), format(), level());
  const absl::string_view plain_view = plain;
  CheckingSink decompressed(4 * kKiB);
  const absl::Status status =
      Decompress(absl::MakeConstSpan(&plain_view, 1), format(),
                 payload().size(), &decompressed);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_FALSE(decompressed.open());
  EXPECT_EQ(decompressed.out(), payload());
  if (payload().size() > 8 * kKiB) {
    EXPECT_GT(compressed.chunks(), 1);
    EXPECT_GT(decompressed.chunks(), 2);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFormatsSizesLevels, RoundTripTest,
    testing::Combine(testing::Values(Format::kGzip, Format::kDeflate),
                     testing::ValuesIn(kPayloads),
                     testing::Values(-1, 0, 1, 9)),
    [](const testing::TestParamInfo<RoundTripParam>& info) {
      const int level = std::get<2>(info.param);
      return std::string(std::get<0>(info.param) == Format::kGzip ? "Gzip"
                                                                  : "Zlib") +
             std::get<1>(info.param).name + "Level" +
             (level < 0 ? "Default" : std::to_string(level));
    });

// ---------------------------------------------------------------------------
// Tests that run once per format.

class CodecTest : public testing::TestWithParam<Format> {
 protected:
  Format format() const { return GetParam(); }
  Format other_format() const {
    return GetParam() == Format::kGzip ? Format::kDeflate : Format::kGzip;
  }
};

INSTANTIATE_TEST_SUITE_P(BothFormats, CodecTest,
                         testing::Values(Format::kGzip, Format::kDeflate),
                         [](const testing::TestParamInfo<Format>& info) {
                           return std::string(
                               info.param == Format::kGzip ? "Gzip" : "Zlib");
                         });

TEST_P(CodecTest, ManySmallPiecesIntoSmallChunks) {
  // 1000 pieces of 7 bytes in, chunks of at most 13 bytes out.
  const std::string data = TextLike(7000, 7);
  const std::vector<absl::string_view> pieces = Split(data, 7);
  ASSERT_EQ(pieces.size(), 1000u);
  CompressOptions options;
  options.backend = Backend::kZlib;
  options.format = format();
  CheckingSink compressed(13);
  ASSERT_TRUE(Compress(pieces, options, &compressed).ok());
  EXPECT_GT(compressed.chunks(), 10);
  std::string inflated;
  ASSERT_TRUE(plain_zlib::InflateOne(compressed.out(), format(), &inflated));
  EXPECT_EQ(inflated, data);

  // And back: the compressed stream in 7-byte pieces, out in 13-byte chunks.
  const std::vector<absl::string_view> compressed_pieces =
      Split(compressed.out(), 7);
  CheckingSink decompressed(13);
  const absl::Status status =
      Decompress(compressed_pieces, format(), data.size(), &decompressed);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(decompressed.out(), data);
  EXPECT_GE(decompressed.chunks(), 7000 / 13);
}

TEST_P(CodecTest, EmptyPiecesAreSkipped) {
  const std::string data = TextLike(3000, 3);
  std::vector<absl::string_view> pieces = {
      "", absl::string_view(data).substr(0, 10), "",
      "", absl::string_view(data).substr(10),    ""};
  CompressOptions options;
  options.backend = Backend::kZlib;
  options.format = format();
  std::string compressed;
  StringSink sink(&compressed);
  ASSERT_TRUE(Compress(pieces, options, &sink).ok());
  std::string inflated;
  ASSERT_TRUE(plain_zlib::InflateOne(compressed, format(), &inflated));
  EXPECT_EQ(inflated, data);

  const absl::string_view view = compressed;
  pieces = {"", view.substr(0, 1), "", view.substr(1), "", ""};
  std::string out;
  StringSink out_sink(&out);
  const absl::Status status =
      Decompress(pieces, format(), data.size(), &out_sink);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(out, data);
}

TEST_P(CodecTest, NoPiecesAtAll) {
  CompressOptions options;
  options.backend = Backend::kZlib;
  options.format = format();
  std::string compressed;
  StringSink sink(&compressed);
  ASSERT_TRUE(Compress({}, options, &sink).ok());
  std::string inflated = "stale";
  ASSERT_TRUE(plain_zlib::InflateOne(compressed, format(), &inflated));
  EXPECT_EQ(inflated, "");
}

TEST_P(CodecTest, LevelIsApplied) {
  const std::string text = TextLike(64 * kKiB);
  const std::string stored = Compressed(text, format(), 0);
  const std::string fast = Compressed(text, format(), 1);
  const std::string best = Compressed(text, format(), 9);
  // Level 0 stores, so it cannot be smaller than the input.
  EXPECT_GT(stored.size(), text.size());
  EXPECT_LT(fast.size(), text.size() / 2);
  EXPECT_LE(best.size(), fast.size());
  // Same level and input: same bytes as plain zlib.
  EXPECT_EQ(best, Deflate(text, format(), 9));
  EXPECT_EQ(Compressed(text, format(), kDefaultLevel),
            Deflate(text, format(), Z_DEFAULT_COMPRESSION));
}

TEST_P(CodecTest, InvalidLevelIsInvalidArgument) {
  for (int level : {10, -2, 100}) {
    CompressOptions options;
    options.backend = Backend::kZlib;
    options.format = format();
    options.level = level;
    std::string out;
    const absl::Status status = CompressToString("hello", options, &out);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
        << "level " << level << ": " << status;
  }
}

TEST_P(CodecTest, CorruptDataIsDataLoss) {
  const std::string data = TextLike(kKiB, 11);
  const std::string good = Compressed(data, format());
  // Past the longest header (gzip's 10 bytes, whose mtime and OS bytes are
  // not checked), every corrupted byte must be caught by zlib or the
  // checksum.
  for (size_t i = 10; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x55);
    std::string out;
    const absl::Status status = DecompressToString(bad, format(), kMiB, &out);
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss)
        << "byte " << i << " of " << good.size() << ": " << status;
    EXPECT_TRUE(out.empty());
  }
}

TEST_P(CodecTest, GarbageIsDataLoss) {
  std::string out;
  EXPECT_EQ(
      DecompressToString("this is not compressed at all", format(), kMiB, &out)
          .code(),
      absl::StatusCode::kDataLoss);
  EXPECT_EQ(
      DecompressToString(RandomBytes(4 * kKiB, 5), format(), kMiB, &out).code(),
      absl::StatusCode::kDataLoss);
}

TEST_P(CodecTest, EveryTruncationOfSmallStreamIsDataLoss) {
  const std::string data = TextLike(200, 5);
  const std::string good = Compressed(data, format());
  for (size_t length = 0; length < good.size(); ++length) {
    std::string out;
    const absl::Status status = DecompressToString(
        absl::string_view(good).substr(0, length), format(), kMiB, &out);
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss)
        << "prefix " << length << " of " << good.size() << ": " << status;
  }
  std::string out;
  ASSERT_TRUE(DecompressToString(good, format(), kMiB, &out).ok());
  EXPECT_EQ(out, data);
}

TEST_P(CodecTest, TruncatedLargeStreamIsDataLoss) {
  for (const std::string& data : {TextLike(kMiB), RandomBytes(256 * kKiB)}) {
    const std::string good = Compressed(data, format());
    for (size_t cut : {good.size() / 2, good.size() - 1, good.size() - 4}) {
      std::string out;
      const absl::Status status = DecompressToString(
          absl::string_view(good).substr(0, cut), format(), kNoLimit, &out);
      EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss)
          << "cut at " << cut << " of " << good.size() << ": " << status;
    }
  }
}

TEST_P(CodecTest, TrailingBytesAreDataLoss) {
  const std::string data = TextLike(kKiB, 9);
  const std::string good = Compressed(data, format());
  std::string out;
  EXPECT_EQ(DecompressToString(good + "x", format(), kMiB, &out).code(),
            absl::StatusCode::kDataLoss);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(DecompressToString(good + good, format(), kMiB, &out).code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(
      DecompressToString(good + std::string(1, '\0'), format(), kMiB, &out)
          .code(),
      absl::StatusCode::kDataLoss);

  // Trailing bytes in a piece of their own, after an empty one.
  std::vector<absl::string_view> pieces = {good, "", "!"};
  std::string sunk;
  StringSink sink(&sunk);
  EXPECT_EQ(Decompress(pieces, format(), kMiB, &sink).code(),
            absl::StatusCode::kDataLoss);

  // Only empty pieces after the stream are fine.
  pieces = {good, "", ""};
  sunk.clear();
  ASSERT_TRUE(Decompress(pieces, format(), kMiB, &sink).ok());
  EXPECT_EQ(sunk, data);
}

TEST_P(CodecTest, WrongFormatIsDataLoss) {
  const std::string data = TextLike(kKiB, 4);
  const std::string other = Compressed(data, other_format());
  std::string out;
  const absl::Status status = DecompressToString(other, format(), kMiB, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_TRUE(out.empty());
}

TEST_P(CodecTest, OutputLimit) {
  const std::string data = TextLike(kKiB, 8);
  const std::string compressed = Compressed(data, format());
  std::string out;
  EXPECT_EQ(
      DecompressToString(compressed, format(), data.size() - 1, &out).code(),
      absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(DecompressToString(compressed, format(), 0, &out).code(),
            absl::StatusCode::kResourceExhausted);

  // Exactly the size of the payload is allowed.
  ASSERT_TRUE(DecompressToString(compressed, format(), data.size(), &out).ok());
  EXPECT_EQ(out, data);

  // An empty payload fits a zero limit; one byte does not.
  ASSERT_TRUE(
      DecompressToString(Compressed("", format()), format(), 0, &out).ok());
  EXPECT_EQ(out, "");
  EXPECT_EQ(
      DecompressToString(Compressed("y", format()), format(), 0, &out).code(),
      absl::StatusCode::kResourceExhausted);
  ASSERT_TRUE(
      DecompressToString(Compressed("y", format()), format(), 1, &out).ok());
  EXPECT_EQ(out, "y");
}

TEST_P(CodecTest, OutputLimitAtChunkBoundaries) {
  // Payloads around the codec's 128 KiB chunk size, limit equal and one less.
  for (size_t size : {128 * kKiB - 1, 128 * kKiB, 128 * kKiB + 1, 256 * kKiB}) {
    const std::string data = TextLike(size, static_cast<uint32_t>(size));
    const std::string compressed = Compressed(data, format());
    std::string out;
    const absl::Status status =
        DecompressToString(compressed, format(), size, &out);
    ASSERT_TRUE(status.ok()) << size << ": " << status;
    EXPECT_EQ(out, data);
    EXPECT_EQ(DecompressToString(compressed, format(), size - 1, &out).code(),
              absl::StatusCode::kResourceExhausted)
        << size;
  }
}

TEST_P(CodecTest, BombAsksSinkForAtMostLimitPlusOne) {
  const std::string zeros(64 * kMiB, '\0');
  const std::string bomb = Compressed(zeros, format(), 9);
  ASSERT_LT(bomb.size(), kMiB);
  const absl::string_view view = bomb;
  CountingSink sink;
  const absl::Status status =
      Decompress(absl::MakeConstSpan(&view, 1), format(), kMiB, &sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_LE(sink.requested(), kMiB + 1);
  EXPECT_LE(sink.committed(), kMiB + 1);
  EXPECT_GE(sink.requested(), kMiB);  // it did get as far as the limit
}

TEST_P(CodecTest, WarmPoolCreatesNoContexts) {
  // Warm up this thread's free lists for the deflate and inflate keys.
  std::string compressed;
  std::string out;
  CompressOptions options;
  options.backend = Backend::kZlib;
  options.format = format();
  ASSERT_TRUE(CompressToString("warm up", options, &compressed).ok());
  ASSERT_TRUE(DecompressToString(compressed, format(), kMiB, &out).ok());

  const PoolStats before = GetPoolStats();
  for (int i = 0; i < 1000; ++i) {
    const std::string message =
        TextLike(100 + static_cast<size_t>(i) * 7, static_cast<uint32_t>(i));
    ASSERT_TRUE(CompressToString(message, options, &compressed).ok());
    ASSERT_TRUE(DecompressToString(compressed, format(), kMiB, &out).ok())
        << "call " << i;
    ASSERT_EQ(out, message) << "call " << i;
  }
  const PoolStats after = GetPoolStats();
  EXPECT_EQ(after.created, before.created);
  EXPECT_GE(after.reused - before.reused, 2000u);
  EXPECT_EQ(after.destroyed, before.destroyed);
  EXPECT_EQ(after.live - after.pooled, 0u);  // nothing left checked out
}

TEST_P(CodecTest, PooledContextsWorkWithSmallChunkSinks) {
  // Each call reuses the context of the previous one; the output must not
  // depend on where the previous call's output went.
  const std::string data = TextLike(5000, 21);
  CompressOptions options;
  options.backend = Backend::kZlib;
  options.format = format();
  for (int i = 0; i < 5; ++i) {
    const absl::string_view input = data;
    CheckingSink compressed(100 + i * 37);
    ASSERT_TRUE(
        Compress(absl::MakeConstSpan(&input, 1), options, &compressed).ok());
    std::string inflated;
    ASSERT_TRUE(plain_zlib::InflateOne(compressed.out(), format(), &inflated))
        << "call " << i;
    EXPECT_EQ(inflated, data) << "call " << i;

    const std::string plain = Deflate(data, format());
    const absl::string_view plain_view = plain;
    CheckingSink decompressed(100 + i * 37);
    ASSERT_TRUE(Decompress(absl::MakeConstSpan(&plain_view, 1), format(),
                           data.size(), &decompressed)
                    .ok())
        << "call " << i;
    EXPECT_EQ(decompressed.out(), data) << "call " << i;
  }
}

TEST_P(CodecTest, DecompressErrorDiscardsContext) {
  const std::string data = TextLike(kKiB, 13);
  const std::string good = Compressed(data, format());
  std::string out;
  ASSERT_TRUE(DecompressToString(good, format(), kMiB, &out).ok());

  // One idle inflate context now; the corrupt call gets it and must kill it.
  std::string bad = good;
  bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0xff);
  const PoolStats before = GetPoolStats();
  ASSERT_EQ(DecompressToString(bad, format(), kMiB, &out).code(),
            absl::StatusCode::kDataLoss);
  const PoolStats after_error = GetPoolStats();
  EXPECT_EQ(after_error.reused, before.reused + 1);
  EXPECT_EQ(after_error.discarded, before.discarded + 1);
  EXPECT_EQ(after_error.destroyed, before.destroyed + 1);
  EXPECT_EQ(after_error.created, before.created);

  // The next call cannot have it back, so it creates a fresh one.
  ASSERT_TRUE(DecompressToString(good, format(), kMiB, &out).ok());
  EXPECT_EQ(out, data);
  const PoolStats after_retry = GetPoolStats();
  EXPECT_EQ(after_retry.created, after_error.created + 1);
  EXPECT_EQ(after_retry.reused, after_error.reused);
}

TEST_P(CodecTest, OutputLimitErrorDiscardsContext) {
  const std::string data = TextLike(kKiB, 14);
  const std::string good = Compressed(data, format());
  std::string out;
  ASSERT_TRUE(DecompressToString(good, format(), kMiB, &out).ok());
  const PoolStats before = GetPoolStats();
  ASSERT_EQ(DecompressToString(good, format(), 10, &out).code(),
            absl::StatusCode::kResourceExhausted);
  const PoolStats after = GetPoolStats();
  EXPECT_EQ(after.discarded, before.discarded + 1);
  ASSERT_TRUE(DecompressToString(good, format(), kMiB, &out).ok());
  EXPECT_EQ(out, data);
  EXPECT_EQ(GetPoolStats().created, after.created + 1);
}

TEST_P(CodecTest, EmptyInputAfterTrailingBytesIsDataLoss) {
  // Two valid streams back to back: the first is inflated, the second left
  // over as "trailing bytes". A following call with no input at all must
  // not see any of them.
  const std::string first = TextLike(kKiB, 1);
  const std::string second = TextLike(kKiB, 2);
  const std::string both =
      Compressed(first, format()) + Compressed(second, format());
  std::string out;
  ASSERT_EQ(DecompressToString(both, format(), kMiB, &out).code(),
            absl::StatusCode::kDataLoss);
  const absl::Status status = DecompressToString("", format(), kMiB, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_TRUE(out.empty()) << out.size() << " bytes came out of no input";

  // The context that saw trailing bytes is still good for a real message.
  const std::string third = TextLike(kKiB, 3);
  ASSERT_TRUE(
      DecompressToString(Compressed(third, format()), format(), kMiB, &out)
          .ok());
  EXPECT_EQ(out, third);
}

TEST_P(CodecTest, FormatsAndLevelsUseSeparateContexts) {
  // Alternating keys on one warm thread must not mix contexts: each result
  // is checked by plain zlib in its own format.
  for (int round = 0; round < 3; ++round) {
    for (Format f : {Format::kGzip, Format::kDeflate}) {
      for (int level : {-1, 0, 1, 9}) {
        const std::string data = TextLike(2000, round * 10 + level + 1);
        std::string inflated;
        ASSERT_TRUE(
            plain_zlib::InflateOne(Compressed(data, f, level), f, &inflated))
            << FormatName(f) << " level " << level << " round " << round;
        EXPECT_EQ(inflated, data);
      }
    }
  }
}

TEST_P(CodecTest, SmallMessageIsOneChunk) {
  // deflateBound sizes the first chunk, and 64 KiB still fits the codec's
  // largest chunk, so the sink is asked once.
  for (size_t size : {size_t{0}, kKiB, 64 * kKiB}) {
    const std::string data = RandomBytes(size, 77);
    const absl::string_view input = data;
    CompressOptions options;
    options.backend = Backend::kZlib;
    options.format = format();
    CheckingSink sink(kMiB);
    ASSERT_TRUE(Compress(absl::MakeConstSpan(&input, 1), options, &sink).ok());
    EXPECT_EQ(sink.chunks(), 1) << size;
    std::string inflated;
    ASSERT_TRUE(plain_zlib::InflateOne(sink.out(), format(), &inflated));
    EXPECT_EQ(inflated, data);
  }
}

TEST(CodecMiscTest, GzipHeaderWithNameAndCommentDecodes) {
  // What the gzip tool writes: a file name and more in the header.
  const std::string data = TextLike(3 * kKiB, 31);
  char name[] = "payload.txt";
  char comment[] = "made by plain zlib";
  gz_header header{};
  header.name = reinterpret_cast<Bytef*>(name);
  header.comment = reinterpret_cast<Bytef*>(comment);
  header.hcrc = 1;
  header.os = 3;
  const std::string compressed =
      Deflate(data, Format::kGzip, {6, Z_DEFAULT_STRATEGY, &header, {}});

  std::string out;
  const absl::Status status =
      DecompressToString(compressed, Format::kGzip, data.size(), &out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(out, data);
}

TEST(CodecMiscTest, PresetDictionaryIsDataLoss) {
  // A zlib stream that needs a dictionary cannot be read by gRPC peers.
  const std::string data = TextLike(2 * kKiB, 32);
  const std::string dictionary = TextLike(512, 33);
  const std::string compressed = Deflate(
      data, Format::kDeflate, {6, Z_DEFAULT_STRATEGY, nullptr, dictionary});

  const PoolStats before = GetPoolStats();
  std::string out;
  const absl::Status status =
      DecompressToString(compressed, Format::kDeflate, kMiB, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(GetPoolStats().discarded, before.discarded + 1);
}

TEST(CodecMiscTest, FormatNames) {
  EXPECT_EQ(FormatName(Format::kGzip), "gzip");
  EXPECT_EQ(FormatName(Format::kDeflate), "deflate");
}

// Core's windowBits (message_compress.cc): 15 + 16 for gzip, 15 for the
// zlib format, and no other that the seam would take for core's.
TEST(CodecMiscTest, CoreWindowBitsNameTheFormat) {
  EXPECT_EQ(internal::WindowBitsOf(Format::kGzip), 31);
  EXPECT_EQ(internal::WindowBitsOf(Format::kDeflate), 15);
  for (Format format : {Format::kGzip, Format::kDeflate}) {
    EXPECT_EQ(internal::FormatOfWindowBits(internal::WindowBitsOf(format)),
              format);
  }
  for (int other : {-15, 0, 8, 14, 47}) {
    EXPECT_EQ(internal::FormatOfWindowBits(other), std::nullopt) << other;
  }
}

TEST(CodecMiscTest, ZeroByteCapPoolsNothing) {
  const Options original = GetOptions();
  Options options_without_room = original;
  options_without_room.max_pooled_bytes = 0;
  ASSERT_TRUE(Configure(options_without_room).ok());
  const PoolStats before = GetPoolStats();
  // A key no other test uses, so no idle context of it exists yet.
  Compressed("abc", Format::kDeflate, 2);
  Compressed("abc", Format::kDeflate, 2);
  const PoolStats after = GetPoolStats();
  ASSERT_TRUE(Configure(original).ok());
  EXPECT_EQ(after.reused, before.reused);
  EXPECT_EQ(after.created, before.created + 2);
  EXPECT_EQ(after.rejected_by_caps, before.rejected_by_caps + 2);
  EXPECT_EQ(after.pooled_bytes, before.pooled_bytes);
}

TEST(CodecMiscTest, PooledBytesMatchIdleContexts) {
  // An idle context is accounted with the heap zlib holds for it, which for
  // a deflate context is well above 100 KiB at memLevel 8, windowBits 15.
  const PoolStats before = GetPoolStats();
  Compressed("abc", Format::kGzip, 3);
  const PoolStats after = GetPoolStats();
  EXPECT_EQ(after.pooled, before.pooled + 1);
  EXPECT_GT(after.pooled_bytes - before.pooled_bytes, 100 * kKiB);
  EXPECT_LT(after.pooled_bytes - before.pooled_bytes, 1 * kMiB);
}

}  // namespace
}  // namespace pooled_gzip::internal
