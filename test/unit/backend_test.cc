// The deflate backends side by side: zlib, libdeflate and ISA-L. Round trips
// for every backend, level, format, size and way of slicing; every backend's
// output read by plain zlib and every backend reading zlib's, libdeflate's
// and ISA-L's output, gzip header fields included; lying gzip sizes and
// bombs answered as the zlib backend answers them; output limits on both
// sides; the heap each context reports; and ISA-L's gzip_flag trap. The
// zlib rules and the zlib fallback have their own tests (zlib_rules_test).

#include "codec/backend.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "backend_answers.h"
#include "checking_sink.h"
#include "codec/backend_table.h"
#include "codec/codec.h"
#include "codec/isal_backend.h"
#include "codec/libdeflate_backend.h"
#include "codec/zlib_backend.h"
#include "codec/zlib_fallback.h"
#include "gtest/gtest.h"
#include "plain_zlib.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"
#include "random_inputs.h"

namespace pooled_gzip {

// Found by ADL for the parameterised tests' names.
void PrintTo(Backend backend, std::ostream* os) { *os << BackendName(backend); }

namespace internal {

void PrintTo(Format format, std::ostream* os) { *os << FormatName(format); }

namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

constexpr Format kFormats[] = {Format::kGzip, Format::kDeflate};

using payloads::RandomBytes;
using payloads::TextLike;
using test_support::Answer;
using test_support::CheckingSink;
using test_support::Compressed;
using test_support::CompressWith;
using test_support::DecompressWith;
using test_support::ExpectSameAsZlib;
using test_support::kNoLimit;
using test_support::Slice;
using test_support::Slicing;
using test_support::SlicingName;

// ---------------------------------------------------------------------------
// Sinks.

// Hands out the hinted size from one scratch buffer (reused, never filled
// in), so that a bomb costs no memory here; counts bytes handed out.
class CountingSink final : public ChunkSink {
 public:
  absl::Span<char> NextChunk(size_t size_hint) override {
    if (size_hint > scratch_.size()) scratch_.resize(size_hint);
    given_ += size_hint;
    open_ = true;
    return absl::MakeSpan(scratch_.data(), size_hint);
  }
  void CommitChunk(size_t used) override {
    committed_ += used;
    open_ = false;
  }
  size_t given() const { return given_; }
  size_t committed() const { return committed_; }
  bool open() const { return open_; }

 private:
  std::vector<char> scratch_;
  size_t given_ = 0;
  size_t committed_ = 0;
  bool open_ = false;
};

std::string SetIsize(std::string gzip, uint32_t size) {
  for (int i = 0; i < 4; ++i) {
    gzip[gzip.size() - 4 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
  }
  return gzip;
}

// ---------------------------------------------------------------------------
// Round trips: backend x format x level (min, default, max), each over
// sizes and slicings.

using RoundTripParam = std::tuple<Backend, Format, int>;

class BackendRoundTripTest : public testing::TestWithParam<RoundTripParam> {
 protected:
  Backend backend() const { return std::get<0>(GetParam()); }
  Format format() const { return std::get<1>(GetParam()); }
  int level() const {
    const LevelRange range = LevelsOf(backend());
    switch (std::get<2>(GetParam())) {
      case 0:
        return range.min;
      case 1:
        return kDefaultLevel;
      default:
        return range.max;
    }
  }

  void RoundTrip(const std::string& data, Slicing slicing,
                 size_t max_chunk = kNoLimit) {
    SCOPED_TRACE(absl::StrCat(BackendName(backend()), " ", FormatName(format()),
                              " level ", level(), ", ", data.size(), " bytes, ",
                              SlicingName(slicing), ", chunks <= ", max_chunk));
    const std::vector<absl::string_view> pieces = Slice(data, slicing);
    CheckingSink sink(max_chunk);
    const absl::Status status =
        CompressWith(backend(), format(), level(), pieces, &sink);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_FALSE(sink.open());
    const std::string compressed = sink.out();

    std::string plain;
    ASSERT_TRUE(plain_zlib::InflateOne(compressed, format(), &plain));
    ASSERT_TRUE(plain == data) << "plain zlib read back something else";

    // The compressed side cut the same way (1-byte pieces of big streams
    // would only be slow).
    const Slicing back = slicing == Slicing::kBytes && compressed.size() > 70000
                             ? Slicing::kRandomCuts
                             : slicing;
    const std::vector<absl::string_view> compressed_pieces =
        Slice(compressed, back, 11);
    const Answer exact = DecompressWith(backend(), format(), compressed_pieces,
                                        data.size(), max_chunk);
    ASSERT_EQ(exact.code, absl::StatusCode::kOk);
    ASSERT_TRUE(exact.out == data) << "the backend read back something else";
    EXPECT_LE(exact.given, data.size() + 1);
    ExpectFastPath(compressed_pieces, data, back, max_chunk);
    if (!data.empty()) {
      const Answer short_limit = DecompressWith(
          backend(), format(), compressed_pieces, data.size() - 1, max_chunk);
      EXPECT_EQ(short_limit.code, absl::StatusCode::kResourceExhausted);
      EXPECT_LE(short_limit.given, data.size());
    }
  }

  // A valid stream with a plain header never reaches the zlib fallback
  // (which would show in the reader's heap), however it is cut: ISA-L
  // always, libdeflate for gzip in one piece into chunks that fit it.
  void ExpectFastPath(absl::Span<const absl::string_view> pieces,
                      const std::string& data, Slicing slicing,
                      size_t max_chunk) {
    const bool expected =
        backend() == Backend::kIsal ||
        (backend() == Backend::kLibdeflate && format() == Format::kGzip &&
         slicing == Slicing::kWhole && max_chunk > data.size() &&
         !data.empty());
    if (!expected) return;
    std::unique_ptr<internal::Inflater> inflater =
        internal::NewInflater({backend(), format()});
    ASSERT_NE(inflater, nullptr);
    const size_t fresh = inflater->HeapBytes();
    CheckingSink sink(max_chunk);
    ASSERT_TRUE(inflater->Inflate(pieces, data.size(), &sink).ok());
    EXPECT_TRUE(sink.out() == data);
    ASSERT_TRUE(inflater->Reset());
    // The buffer a message of many small pieces is gathered in goes; the
    // zlib fallback's state would stay.
    inflater->FreeBuffers();
    EXPECT_EQ(inflater->HeapBytes(), fresh) << "the zlib fallback was used";
  }
};

TEST_P(BackendRoundTripTest, SmallSizesEverySlicing) {
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{1000}}) {
    for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts,
                            Slicing::kBytes, Slicing::kWithEmpty}) {
      RoundTrip(TextLike(size, static_cast<uint32_t>(size)), slicing);
      RoundTrip(RandomBytes(size, static_cast<uint32_t>(size)), slicing);
    }
  }
}

TEST_P(BackendRoundTripTest, LargerSizes) {
  for (size_t size : {64 * kKiB, kMiB}) {
    for (Slicing slicing :
         {Slicing::kWhole, Slicing::kRandomCuts, Slicing::kWithEmpty}) {
      RoundTrip(TextLike(size, 3), slicing);
    }
    RoundTrip(RandomBytes(size, 5), Slicing::kRandomCuts);
  }
  RoundTrip(TextLike(64 * kKiB, 4), Slicing::kBytes);
}

TEST_P(BackendRoundTripTest, SmallOutputChunks) {
  // Sinks that cut every chunk short: libdeflate's one-shot reader then
  // hands over to zlib, ISA-L streams through many chunks.
  for (size_t max_chunk : {size_t{1}, size_t{7}, size_t{1000}}) {
    RoundTrip(TextLike(3000, 9), Slicing::kWhole, max_chunk);
    RoundTrip(TextLike(3000, 9), Slicing::kRandomCuts, max_chunk);
  }
  RoundTrip(TextLike(200 * kKiB, 9), Slicing::kWhole, 1000);
}

std::string RoundTripName(const testing::TestParamInfo<RoundTripParam>& info) {
  static constexpr const char* kLevels[] = {"MinLevel", "DefaultLevel",
                                            "MaxLevel"};
  return absl::StrCat(BackendName(std::get<0>(info.param)), "_",
                      FormatName(std::get<1>(info.param)), "_",
                      kLevels[std::get<2>(info.param)]);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendRoundTripTest,
                         testing::Combine(testing::ValuesIn(kAllBackends),
                                          testing::ValuesIn(kFormats),
                                          testing::Values(0, 1, 2)),
                         RoundTripName);

// The largest size at the default level only, to keep the run short.
TEST(BackendLargeTest, FourMiB) {
  const std::string text = TextLike(4 * kMiB, 8);
  for (Backend backend : kAllBackends) {
    for (Format format : kFormats) {
      for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts}) {
        SCOPED_TRACE(absl::StrCat(BackendName(backend), " ", FormatName(format),
                                  " ", SlicingName(slicing)));
        CheckingSink sink;
        ASSERT_TRUE(CompressWith(backend, format, kDefaultLevel,
                                 Slice(text, slicing), &sink)
                        .ok());
        std::string plain;
        ASSERT_TRUE(plain_zlib::InflateOne(sink.out(), format, &plain));
        EXPECT_TRUE(plain == text);
        const std::vector<absl::string_view> pieces =
            Slice(sink.out(), slicing, 3);
        const Answer back = DecompressWith(backend, format, pieces, 4 * kMiB);
        EXPECT_EQ(back.code, absl::StatusCode::kOk);
        EXPECT_TRUE(back.out == text);
        EXPECT_EQ(DecompressWith(backend, format, pieces, 4 * kMiB - 1).code,
                  absl::StatusCode::kResourceExhausted);
      }
    }
  }
}

// Every level, not just the ends, on two sizes.
TEST(BackendLevelsTest, EveryLevelRoundTrips) {
  const std::string text = TextLike(100 * kKiB, 12);
  for (Backend backend : kAllBackends) {
    const LevelRange range = LevelsOf(backend);
    for (int level = range.min; level <= range.max; ++level) {
      for (Format format : kFormats) {
        for (absl::string_view data :
             {absl::string_view(text),
              absl::string_view(text).substr(0, 500)}) {
          SCOPED_TRACE(absl::StrCat(BackendName(backend), " level ", level, " ",
                                    FormatName(format)));
          const std::string compressed =
              Compressed(backend, format, level, data);
          std::string plain;
          ASSERT_TRUE(plain_zlib::InflateOne(compressed, format, &plain));
          EXPECT_TRUE(plain == data);
          const Answer back =
              DecompressWith(backend, format, {compressed}, data.size());
          EXPECT_EQ(back.code, absl::StatusCode::kOk);
          EXPECT_TRUE(back.out == data);
        }
      }
    }
  }
}

TEST(BackendLevelsTest, LevelsAreResolvedPerBackend) {
  using internal::ResolveLevel;
  EXPECT_EQ(*ResolveLevel(Backend::kZlib, kDefaultLevel), 6);
  EXPECT_EQ(*ResolveLevel(Backend::kLibdeflate, kDefaultLevel), 6);
  EXPECT_EQ(*ResolveLevel(Backend::kIsal, kDefaultLevel), 1);
  EXPECT_EQ(*ResolveLevel(Backend::kLibdeflate, 12), 12);
  EXPECT_EQ(*ResolveLevel(Backend::kIsal, 3), 3);
  for (Backend backend : kAllBackends) {
    const LevelRange range = LevelsOf(backend);
    for (int bad : {range.min - 2, range.max + 1, 100}) {
      EXPECT_EQ(ResolveLevel(backend, bad).status().code(),
                absl::StatusCode::kInvalidArgument)
          << BackendName(backend) << " level " << bad;
      CheckingSink sink;
      EXPECT_EQ(
          CompressWith(backend, Format::kGzip, bad, {"data"}, &sink).code(),
          absl::StatusCode::kInvalidArgument);
    }
  }
  EXPECT_EQ(BackendName(Backend::kLibdeflate), "libdeflate");
  EXPECT_EQ(BackendName(Backend::kIsal), "isal");
}

TEST(BackendLevelsTest, HigherLevelsAreNotLarger) {
  // A level must reach the library: its extremes give different sizes.
  const std::string text = TextLike(256 * kKiB, 13);
  for (Backend backend : kAllBackends) {
    const LevelRange range = LevelsOf(backend);
    const size_t low =
        Compressed(backend, Format::kGzip, range.min, text).size();
    const size_t high =
        Compressed(backend, Format::kGzip, range.max, text).size();
    EXPECT_LT(high, low) << BackendName(backend);
  }
}

// ---------------------------------------------------------------------------
// Cross-decoding: plain zlib reads every backend (above, in every round
// trip); every backend reads zlib's, libdeflate's and ISA-L's output.

TEST(CrossDecodeTest, EveryBackendReadsEveryProducer) {
  struct Producer {
    std::string name;
    Backend backend;
    int level;  // for plain zlib: its own level
    bool plain_zlib;
  };
  const std::vector<Producer> producers = {
      {"plain zlib 1", Backend::kZlib, 1, true},
      {"plain zlib 6", Backend::kZlib, 6, true},
      {"plain zlib 9", Backend::kZlib, 9, true},
      {"libdeflate 1", Backend::kLibdeflate, 1, false},
      {"libdeflate 6", Backend::kLibdeflate, 6, false},
      {"libdeflate 12", Backend::kLibdeflate, 12, false},
      {"isal 0", Backend::kIsal, 0, false},
      {"isal 1", Backend::kIsal, 1, false},
      {"isal 3", Backend::kIsal, 3, false},
  };
  for (size_t size : {size_t{0}, size_t{1}, size_t{1000}, 100 * kKiB}) {
    const std::string data = TextLike(size, 21);
    for (Format format : kFormats) {
      for (const Producer& producer : producers) {
        const std::string compressed =
            producer.plain_zlib
                ? plain_zlib::Deflate(data, format, producer.level)
                : Compressed(producer.backend, format, producer.level, data);
        for (Backend reader : kAllBackends) {
          for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts}) {
            const Answer got = DecompressWith(
                reader, format, Slice(compressed, slicing), data.size());
            EXPECT_EQ(got.code, absl::StatusCode::kOk)
                << BackendName(reader) << " reading " << producer.name << " "
                << FormatName(format) << ", " << size << " bytes";
            EXPECT_TRUE(got.out == data);
          }
        }
      }
    }
  }
}

// gzip headers as tools write them: every optional field alone and all at
// once, the header CRC included.
TEST(CrossDecodeTest, GzipHeaderFields) {
  const std::string data = TextLike(5000, 22);
  std::string extra = "ab\x04\x00xyzw";
  std::string name = "payload.txt";
  std::string comment = "a comment";
  struct Case {
    const char* what;
    bool extra, name, comment, hcrc;
  };
  for (const Case& c : {Case{"FEXTRA", true, false, false, false},
                        Case{"FNAME", false, true, false, false},
                        Case{"FCOMMENT", false, false, true, false},
                        Case{"FHCRC", false, false, false, true},
                        Case{"all", true, true, true, true}}) {
    gz_header header{};
    header.os = 3;
    header.time = 12345;
    if (c.extra) {
      header.extra = reinterpret_cast<Bytef*>(extra.data());
      header.extra_len = static_cast<uInt>(extra.size());
    }
    if (c.name) header.name = reinterpret_cast<Bytef*>(name.data());
    if (c.comment) header.comment = reinterpret_cast<Bytef*>(comment.data());
    header.hcrc = c.hcrc ? 1 : 0;
    const std::string compressed = plain_zlib::Deflate(
        data, Format::kGzip, {6, Z_DEFAULT_STRATEGY, &header, {}});
    ASSERT_NE(compressed[3], 0) << "the header has no optional field";
    for (Backend reader : kAllBackends) {
      for (Slicing slicing :
           {Slicing::kWhole, Slicing::kBytes, Slicing::kWithEmpty}) {
        const Answer got = DecompressWith(
            reader, Format::kGzip, Slice(compressed, slicing), data.size());
        EXPECT_EQ(got.code, absl::StatusCode::kOk)
            << BackendName(reader) << " with " << c.what << ", "
            << SlicingName(slicing);
        EXPECT_TRUE(got.out == data);
      }
    }
    if (c.hcrc && !c.extra && !c.name && !c.comment) {
      // A wrong header CRC (bytes 10-11 here) is caught: libdeflate alone
      // would not check it.
      std::string bad = compressed;
      bad[10] = static_cast<char>(bad[10] ^ 1);
      ExpectSameAsZlib(Format::kGzip, {bad}, kNoLimit, "bad header CRC");
      for (Backend reader : kAllBackends) {
        EXPECT_EQ(DecompressWith(reader, Format::kGzip, {bad}, kNoLimit).code,
                  absl::StatusCode::kDataLoss)
            << BackendName(reader);
      }
    }
  }
}

// Which path a reader took shows in its heap: the zlib fallback is
// created on first use.
TEST(CrossDecodeTest, FastPathsTakePlainStreamsAndZlibTheRest) {
  const std::string data = TextLike(20000, 23);
  for (Backend backend : {Backend::kLibdeflate, Backend::kIsal}) {
    for (Format format : kFormats) {
      std::unique_ptr<internal::Inflater> inflater =
          internal::NewInflater({backend, format});
      ASSERT_NE(inflater, nullptr);
      const size_t fresh = inflater->HeapBytes();
      const std::string compressed = plain_zlib::Deflate(data, format);
      CheckingSink sink;
      ASSERT_TRUE(inflater->Inflate({compressed}, kNoLimit, &sink).ok());
      EXPECT_TRUE(sink.out() == data);
      ASSERT_TRUE(inflater->Reset());
      // libdeflate leaves the zlib format to zlib (it has no size to
      // allocate by); everything else is the fast path's.
      const bool zlib_expected =
          backend == Backend::kLibdeflate && format == Format::kDeflate;
      if (zlib_expected) {
        EXPECT_GT(inflater->HeapBytes(), fresh) << BackendName(backend);
      } else {
        EXPECT_EQ(inflater->HeapBytes(), fresh)
            << BackendName(backend) << " " << FormatName(format)
            << ": a plain stream went to zlib";
      }
    }
    // A gzip header with a name goes to zlib.
    gz_header header{};
    std::string name = "n";
    header.name = reinterpret_cast<Bytef*>(name.data());
    const std::string named = plain_zlib::Deflate(
        data, Format::kGzip, {6, Z_DEFAULT_STRATEGY, &header, {}});
    std::unique_ptr<internal::Inflater> inflater =
        internal::NewInflater({backend, Format::kGzip});
    const size_t fresh = inflater->HeapBytes();
    CheckingSink sink;
    ASSERT_TRUE(inflater->Inflate({named}, kNoLimit, &sink).ok());
    EXPECT_TRUE(sink.out() == data);
    EXPECT_GT(inflater->HeapBytes(), fresh + 5000) << BackendName(backend);
  }
}

// ---------------------------------------------------------------------------
// The gzip trailer's size (ISIZE) comes from the peer.

TEST(LyingIsizeTest, NeverRefusesWhatZlibAcceptsNorAllocatesByIt) {
  const std::string data = TextLike(5000, 41);
  for (Backend producer : kAllBackends) {
    const std::string good =
        Compressed(producer, Format::kGzip, kDefaultLevel, data);
    // The truth, whatever the limit: at, over and far over it.
    for (size_t limit : {data.size(), data.size() + 1, kNoLimit, 100 * kMiB}) {
      ExpectSameAsZlib(Format::kGzip, {good}, limit, "true ISIZE");
      EXPECT_EQ(
          DecompressWith(Backend::kLibdeflate, Format::kGzip, {good}, limit)
              .code,
          absl::StatusCode::kOk);
    }
    for (uint32_t lie :
         {uint32_t{0}, uint32_t{1}, uint32_t{4999}, uint32_t{5001},
          uint32_t{10000}, uint32_t{1} << 26, uint32_t{0xffffffff}}) {
      const std::string lying = SetIsize(good, lie);
      for (size_t limit : {kNoLimit, size_t{100 * kMiB}, data.size(),
                           size_t{6000}, size_t{100}}) {
        // A wrong size fails zlib's length check: DATA_LOSS, unless the
        // limit comes first.
        const absl::StatusCode expected =
            limit < data.size() ? absl::StatusCode::kResourceExhausted
                                : absl::StatusCode::kDataLoss;
        for (Backend reader : kAllBackends) {
          const Answer got =
              DecompressWith(reader, Format::kGzip, {lying}, limit);
          EXPECT_EQ(got.code, expected)
              << BackendName(reader) << " reading " << BackendName(producer)
              << "'s stream claiming " << lie << " bytes, limit " << limit;
          // Never an allocation by the claim: at most what the message
          // really holds plus the zlib path's first chunk.
          EXPECT_LE(got.given, std::min(limit, data.size() + 128 * kKiB) + 1)
              << BackendName(reader) << " claim " << lie;
        }
        ExpectSameAsZlib(Format::kGzip, {lying}, limit,
                         absl::StrCat("ISIZE ", lie));
      }
    }
  }
}

TEST(LyingIsizeTest, SizeOverLimitWithSmallRealStreamIsJudgedByZlib) {
  // A real 50-byte message claiming more than the limit: not
  // RESOURCE_EXHAUSTED by the claim, but what zlib finds (the length check).
  const std::string data = TextLike(50, 42);
  const std::string lying =
      SetIsize(Compressed(Backend::kZlib, Format::kGzip, 6, data), 1000);
  for (Backend reader : kAllBackends) {
    const Answer got = DecompressWith(reader, Format::kGzip, {lying}, 100);
    EXPECT_EQ(got.code, absl::StatusCode::kDataLoss) << BackendName(reader);
    EXPECT_LE(got.given, 101u);
  }
}

// ---------------------------------------------------------------------------
// A bomb: 1 GiB of zeros, about 1 MB of gzip.

// `mib` MiB of zeros, raw deflate at level 6 (about 1030:1).
std::string DeflatedZeros(int mib) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  const std::vector<Bytef> zeros(kMiB, 0);
  std::string body(mib * kKiB + 1024, '\0');
  z.next_out = reinterpret_cast<Bytef*>(&body[0]);
  z.avail_out = static_cast<uInt>(body.size());
  for (int i = 0; i < mib; ++i) {
    z.next_in = const_cast<Bytef*>(zeros.data());
    z.avail_in = static_cast<uInt>(zeros.size());
    EXPECT_EQ(deflate(&z, i == mib - 1 ? Z_FINISH : Z_NO_FLUSH),
              i == mib - 1 ? Z_STREAM_END : Z_OK);
  }
  body.resize(z.total_out);
  deflateEnd(&z);
  return body;
}

// `body` (DeflatedZeros(mib)) wrapped in `format`, with checksums combined
// from one MiB's: one deflate run serves both formats.
std::string ZerosBomb(Format format, const std::string& body, int mib) {
  const bool gzip = format == Format::kGzip;
  std::string stream = gzip ? std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10)
                            : std::string("\x78\x9c", 2);
  stream += body;
  // The trailer: gzip's CRC-32 and size, little-endian; zlib's Adler-32,
  // big-endian.
  const auto update = gzip ? crc32 : adler32;
  const auto combine = gzip ? crc32_combine : adler32_combine;
  const uLong empty = update(0, nullptr, 0);
  const std::vector<Bytef> zeros(kMiB, 0);
  const uLong one = update(empty, zeros.data(), kMiB);
  uLong check = empty;
  for (int i = 0; i < mib; ++i) check = combine(check, one, kMiB);
  auto put = [&](uint32_t value, bool big_endian) {
    for (int i = 0; i < 4; ++i) {
      stream += static_cast<char>(value >> (8 * (big_endian ? 3 - i : i)));
    }
  };
  put(static_cast<uint32_t>(check), !gzip);
  if (gzip) put(static_cast<uint32_t>(mib * kMiB), false);
  return stream;
}

TEST(BombTest, BuiltAsZlibWouldBuildIt) {
  // The same construction, small enough to read whole.
  for (Format format : kFormats) {
    std::string plain;
    ASSERT_TRUE(plain_zlib::InflateOne(ZerosBomb(format, DeflatedZeros(3), 3),
                                       format, &plain));
    EXPECT_EQ(plain, std::string(3 * kMiB, '\0'));
  }
}

TEST(BombTest, EveryBackendStopsAtTheLimit) {
  constexpr size_t kLimit = 4 * kMiB;
  const std::string body = DeflatedZeros(1024);
  for (Format format : kFormats) {
    const std::string bomb = ZerosBomb(format, body, 1024);
    ASSERT_LT(bomb.size(), 2 * kMiB);
    std::vector<std::string> variants = {bomb};
    if (format == Format::kGzip) {
      // Claims that pass the limit check: small (a one-shot chunk of 100
      // bytes that zlib then continues into) and exactly the limit.
      variants.push_back(SetIsize(bomb, 100));
      variants.push_back(SetIsize(bomb, static_cast<uint32_t>(kLimit)));
    }
    for (const std::string& stream : variants) {
      for (Backend backend : kAllBackends) {
        CountingSink sink;
        const absl::Status status =
            Decompress({stream}, format, kLimit, &sink, backend);
        EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted)
            << BackendName(backend) << " " << FormatName(format) << ": "
            << status;
        EXPECT_LE(sink.given(), kLimit + 1) << BackendName(backend);
        EXPECT_FALSE(sink.open()) << BackendName(backend);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// max_output_bytes on compression.

TEST(CompressLimitTest, IncompressibleStopsAndTheDeflaterStaysPooled) {
  const std::string noise = RandomBytes(100 * kKiB, 51);
  const std::string text = TextLike(100 * kKiB, 52);
  for (Backend backend : kAllBackends) {
    for (Format format : kFormats) {
      SCOPED_TRACE(absl::StrCat(BackendName(backend), " ", FormatName(format)));
      // Warm the pool for this key.
      Compressed(backend, format, kDefaultLevel, text);
      const uint64_t created = GetPoolStats().writers.created;
      const uint64_t discarded = GetPoolStats().writers.discarded;
      for (size_t max : {noise.size() - 1, size_t{1000}, size_t{1}}) {
        CheckingSink sink;
        const absl::Status status =
            CompressWith(backend, format, kDefaultLevel, {noise}, &sink, max);
        EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted)
            << "max " << max;
        EXPECT_LE(sink.given(), max + 1) << "max " << max;
        EXPECT_FALSE(sink.open()) << "max " << max;
      }
      // The same deflater, reused: a message still round-trips.
      const std::string again =
          Compressed(backend, format, kDefaultLevel, text);
      std::string plain;
      ASSERT_TRUE(plain_zlib::InflateOne(again, format, &plain));
      EXPECT_TRUE(plain == text);
      EXPECT_EQ(GetPoolStats().writers.created, created);
      EXPECT_EQ(GetPoolStats().writers.discarded, discarded);
    }
  }
}

TEST(CompressLimitTest, ExactLimitIsAccepted) {
  const std::string text = TextLike(10000, 53);
  for (Backend backend : kAllBackends) {
    for (Format format : kFormats) {
      const std::string compressed =
          Compressed(backend, format, kDefaultLevel, text);
      CheckingSink at;
      EXPECT_TRUE(CompressWith(backend, format, kDefaultLevel, {text}, &at,
                               compressed.size())
                      .ok())
          << BackendName(backend);
      EXPECT_EQ(at.out(), compressed);
      CheckingSink under;
      EXPECT_EQ(CompressWith(backend, format, kDefaultLevel, {text}, &under,
                             compressed.size() - 1)
                    .code(),
                absl::StatusCode::kResourceExhausted)
          << BackendName(backend);
    }
  }
}

TEST(CompressChunksTest, IncompressibleOutputTakesFewChunks) {
  // Output past a backend's size estimate must not trickle out in tiny
  // chunks (ISA-L level 0 expands random bytes by about a quarter).
  const std::string noise = RandomBytes(kMiB, 54);
  for (Backend backend : kAllBackends) {
    for (int level : {LevelsOf(backend).min, kDefaultLevel}) {
      CheckingSink sink;
      ASSERT_TRUE(
          CompressWith(backend, Format::kGzip, level, {noise}, &sink).ok());
      const size_t expected_chunks = sink.out().size() / (127 * kKiB) + 1;
      EXPECT_LE(sink.chunks(), expected_chunks + 4)
          << BackendName(backend) << " level " << level << ": "
          << sink.out().size() << " bytes";
    }
  }
}

// ---------------------------------------------------------------------------
// ISA-L's trap: isal_deflate rewrites gzip_flag after the first header and
// isal_deflate_reset keeps it.

TEST(IsalTrapTest, EveryMessageOfAReusedDeflaterHasItsHeader) {
  const std::string text = TextLike(4096, 61);
  for (Format format : kFormats) {
    for (int level = LevelsOf(Backend::kIsal).min;
         level <= LevelsOf(Backend::kIsal).max; ++level) {
      std::unique_ptr<internal::Deflater> deflater =
          internal::NewDeflater({Backend::kIsal, format, level});
      ASSERT_NE(deflater, nullptr);
      for (int message = 1; message <= 3; ++message) {
        CheckingSink sink;
        ASSERT_TRUE(deflater->Deflate({text}, kNoLimit, &sink).ok());
        const std::string& out = sink.out();
        ASSERT_GE(out.size(), 2u);
        if (format == Format::kGzip) {
          EXPECT_EQ(out.substr(0, 3), "\x1f\x8b\x08")
              << "message " << message << " level " << level;
        } else {
          EXPECT_EQ(static_cast<unsigned char>(out[0]) & 0x0f, 8)
              << "message " << message << " level " << level;
        }
        std::string plain;
        EXPECT_TRUE(plain_zlib::InflateOne(out, format, &plain))
            << "message " << message << " level " << level;
        EXPECT_TRUE(plain == text);
        // As the pool does between messages, but only every other time:
        // Deflate must not depend on it.
        if (message % 2 == 1) {
          ASSERT_TRUE(deflater->Reset());
        }
      }
    }
  }
}

TEST(IsalTrapTest, ThroughThePool) {
  const std::string text = TextLike(4096, 62);
  Compressed(Backend::kIsal, Format::kGzip, kDefaultLevel, text);
  const uint64_t created = GetPoolStats().writers.created;
  for (int message = 2; message <= 4; ++message) {
    const std::string out =
        Compressed(Backend::kIsal, Format::kGzip, kDefaultLevel, text);
    EXPECT_EQ(out.substr(0, 2), "\x1f\x8b") << "message " << message;
    std::string plain;
    EXPECT_TRUE(plain_zlib::InflateOne(out, Format::kGzip, &plain));
  }
  EXPECT_EQ(GetPoolStats().writers.created, created) << "not reused";
}

// ---------------------------------------------------------------------------
// Heap per context.

size_t g_allocated = 0;
void* CountingMalloc(size_t size) {
  g_allocated += size;
  return std::malloc(size);
}

TEST(HeapBytesTest, LibdeflateSizesMatchTheLibrary) {
  // Counting malloc with plain free: compatible with objects allocated
  // before or after the switch.
  libdeflate_set_memory_allocator(CountingMalloc, std::free);
  for (int level = LevelsOf(Backend::kLibdeflate).min;
       level <= LevelsOf(Backend::kLibdeflate).max; ++level) {
    g_allocated = 0;
    libdeflate_compressor* c = libdeflate_alloc_compressor(level);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(g_allocated, internal::LibdeflateCompressorBytes(level))
        << "level " << level;
    libdeflate_free_compressor(c);
  }
  g_allocated = 0;
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  EXPECT_EQ(g_allocated, internal::LibdeflateDecompressorBytes());
  libdeflate_free_decompressor(d);
  libdeflate_set_memory_allocator(std::malloc, std::free);
}

TEST(HeapBytesTest, EveryBackendAndLevel) {
  for (Backend backend : kAllBackends) {
    const LevelRange range = LevelsOf(backend);
    for (int level = range.min; level <= range.max; ++level) {
      std::unique_ptr<internal::Deflater> deflater =
          internal::NewDeflater({backend, Format::kGzip, level});
      ASSERT_NE(deflater, nullptr);
      const size_t bytes = deflater->HeapBytes();
      std::cout << "[ heap     ] " << BackendName(backend) << " deflater level "
                << level << ": " << bytes << " bytes\n";
      EXPECT_GT(bytes, 1000u);
      if (backend == Backend::kIsal) {
        EXPECT_GE(bytes, sizeof(isal_zstream));
      }
      if (backend == Backend::kLibdeflate) {
        EXPECT_GE(bytes, internal::LibdeflateCompressorBytes(level));
      }
    }
    for (Format format : kFormats) {
      std::unique_ptr<internal::Inflater> inflater =
          internal::NewInflater({backend, format});
      ASSERT_NE(inflater, nullptr);
      std::cout << "[ heap     ] " << BackendName(backend) << " "
                << FormatName(format) << " inflater: " << inflater->HeapBytes()
                << " bytes\n";
      if (backend == Backend::kIsal) {
        EXPECT_GE(inflater->HeapBytes(), sizeof(inflate_state));
      }
    }
  }
}

// A large message's buffers are kept whatever its size (the pool's byte
// cap decides how long, through FreeBuffers), so the next message of that
// size allocates nothing.
TEST(HeapBytesTest, LibdeflateBuffersAreKeptUntilFreed) {
  std::unique_ptr<internal::Deflater> deflater =
      internal::NewDeflater({Backend::kLibdeflate, Format::kGzip, 6});
  const size_t fresh = deflater->HeapBytes();
  EXPECT_FALSE(deflater->FreeBuffers()) << "a fresh deflater keeps none";
  const std::string big = TextLike(3 * kMiB, 72);
  for (int message = 0; message < 2; ++message) {
    CheckingSink sink;
    ASSERT_TRUE(deflater->Deflate({big, "x"}, kNoLimit, &sink).ok());
    ASSERT_TRUE(deflater->Reset());
    // A gathered copy of the input and an output buffer of its bound.
    EXPECT_GE(deflater->HeapBytes(), fresh + 6 * kMiB);
    EXPECT_LE(deflater->HeapBytes(), fresh + 6 * kMiB + 64 * kKiB);
    std::string plain;
    ASSERT_TRUE(plain_zlib::InflateOne(sink.out(), Format::kGzip, &plain));
    EXPECT_TRUE(plain == big + "x");
  }
  EXPECT_TRUE(deflater->FreeBuffers());
  EXPECT_EQ(deflater->HeapBytes(), fresh);
  CheckingSink sink;
  ASSERT_TRUE(deflater->Deflate({big, "x"}, kNoLimit, &sink).ok());
}

}  // namespace
}  // namespace internal
}  // namespace pooled_gzip
