// The deflate backends side by side: zlib, libdeflate and ISA-L. Round trips
// for every backend, level, format, size and way of slicing; every backend's
// output read by plain zlib and every backend reading zlib's, libdeflate's
// and ISA-L's output, gzip header fields included; hostile input answered
// exactly as the zlib backend answers it; output limits on both sides; the
// heap each context reports; and ISA-L's gzip_flag trap.

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
constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();

constexpr Format kFormats[] = {Format::kGzip, Format::kZlib};

using payloads::RandomBytes;
using payloads::TextLike;
using test_support::CheckingSink;

// ---------------------------------------------------------------------------
// Slicing, sinks.

enum class Slicing {
  kWhole,       // one piece
  kRandomCuts,  // pieces of random sizes
  kBytes,       // one byte per piece
  kWithEmpty,   // random cuts with empty pieces before, between and after
};

const char* SlicingName(Slicing slicing) {
  switch (slicing) {
    case Slicing::kWhole:
      return "whole";
    case Slicing::kRandomCuts:
      return "random cuts";
    case Slicing::kBytes:
      return "1-byte pieces";
    case Slicing::kWithEmpty:
      return "with empty pieces";
  }
  return "";
}

std::vector<absl::string_view> Slice(absl::string_view data, Slicing slicing,
                                     uint32_t seed = 7) {
  std::vector<absl::string_view> pieces;
  std::mt19937 random(seed);
  const absl::string_view empty = data.substr(0, 0);
  switch (slicing) {
    case Slicing::kWhole:
      pieces.push_back(data);
      break;
    case Slicing::kBytes:
      for (size_t i = 0; i < data.size(); ++i) {
        pieces.push_back(data.substr(i, 1));
      }
      break;
    case Slicing::kRandomCuts:
    case Slicing::kWithEmpty: {
      const bool with_empty = slicing == Slicing::kWithEmpty;
      if (with_empty) pieces.push_back(empty);
      // Mostly small pieces, some large, so that cuts fall everywhere,
      // headers and trailers included.
      for (size_t i = 0; i < data.size();) {
        const size_t n = random() % 4 == 0 ? 1 + random() % (data.size() + 1)
                                           : 1 + random() % 64;
        pieces.push_back(data.substr(i, n));
        i += pieces.back().size();
        if (with_empty && random() % 3 == 0) pieces.push_back(empty);
      }
      if (with_empty) pieces.push_back(empty);
      break;
    }
  }
  return pieces;
}

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

absl::Status CompressWith(Backend backend, Format format, int level,
                          absl::Span<const absl::string_view> pieces,
                          ChunkSink* sink, size_t max_output_bytes = kNoLimit) {
  CompressOptions options;
  options.backend = backend;
  options.format = format;
  options.level = level;
  options.max_output_bytes = max_output_bytes;
  return Compress(pieces, options, sink);
}

std::string Compressed(Backend backend, Format format, int level,
                       absl::string_view data) {
  CheckingSink sink;
  const absl::Status status =
      CompressWith(backend, format, level, {data}, &sink);
  EXPECT_TRUE(status.ok()) << status;
  return sink.out();
}

struct Answer {
  absl::StatusCode code;
  std::string message;
  std::string out;
  size_t given;
};

Answer DecompressWith(Backend backend, Format format,
                      absl::Span<const absl::string_view> pieces, size_t limit,
                      size_t max_chunk = kNoLimit,
                      Strictness strictness = Strictness::kDecoder) {
  CheckingSink sink(max_chunk);
  const absl::Status status =
      Decompress(pieces, format, limit, &sink, backend, strictness);
  EXPECT_FALSE(sink.open())
      << BackendName(backend) << " left a chunk uncommitted: " << status;
  return {status.code(), std::string(status.message()),
          status.ok() ? sink.out() : "", sink.given()};
}

// What the zlib backend answers is what every backend must answer.
void ExpectSameAsZlib(Format format, absl::Span<const absl::string_view> pieces,
                      size_t limit, const std::string& what,
                      size_t max_chunk = kNoLimit) {
  const Answer reference =
      DecompressWith(Backend::kZlib, format, pieces, limit, max_chunk);
  for (Backend backend : {Backend::kLibdeflate, Backend::kIsal}) {
    const Answer got =
        DecompressWith(backend, format, pieces, limit, max_chunk);
    EXPECT_EQ(got.code, reference.code)
        << what << ": " << BackendName(backend) << " vs zlib, "
        << FormatName(format) << ", limit " << limit << " (" << got.message
        << " vs " << reference.message << ")";
    EXPECT_TRUE(got.out == reference.out)
        << what << ": " << BackendName(backend) << " output differs";
    if (limit != kNoLimit) {
      EXPECT_LE(got.given, limit + 1)
          << what << ": " << BackendName(backend) << " asked the sink for "
          << got.given << " bytes under a limit of " << limit;
    }
  }
}

// `body` wrapped in `format`, with the checksum and size of `output`.
std::string Wrap(Format format, absl::string_view body,
                 absl::string_view output) {
  const auto* data = reinterpret_cast<const Bytef*>(output.data());
  const auto size = static_cast<uInt>(output.size());
  std::string stream;
  auto put = [&](uint32_t value, bool big_endian) {
    for (int i = 0; i < 4; ++i) {
      stream += static_cast<char>(value >> (8 * (big_endian ? 3 - i : i)));
    }
  };
  if (format == Format::kGzip) {
    stream.assign("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10);
    stream.append(body.data(), body.size());
    put(static_cast<uint32_t>(crc32(0, data, size)), false);
    put(size, false);
  } else {
    stream.assign("\x78\x9c", 2);
    stream.append(body.data(), body.size());
    put(static_cast<uint32_t>(adler32(1, data, size)), true);
  }
  return stream;
}

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
          backend == Backend::kLibdeflate && format == Format::kZlib;
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

// The zlib fallback picks up where a faster decoder stopped: after the
// output it committed, and in the chunk it left open.
TEST(ZlibFallbackTest, ResumesAfterCommittedOutputAndInTheOpenChunk) {
  const std::string data = TextLike(300 * kKiB, 24);
  for (Format format : kFormats) {
    const std::string compressed = plain_zlib::Deflate(data, format);
    for (size_t committed : {size_t{0}, size_t{1}, 70 * kKiB, data.size()}) {
      for (size_t open : {size_t{0}, size_t{1}, size_t{5000}}) {
        // A decoder never opens a chunk past limit + 1.
        if (committed + open > data.size() + 1) continue;
        SCOPED_TRACE(absl::StrCat(FormatName(format), " committed ", committed,
                                  " open ", open));
        CheckingSink sink;
        // What the faster decoder left: `committed` bytes, then a chunk.
        if (committed > 0) {
          absl::Span<char> chunk = sink.NextChunk(committed);
          std::copy_n(data.data(), committed, chunk.data());
          sink.CommitChunk(committed);
        }
        absl::Span<char> open_chunk;
        if (open > 0) open_chunk = sink.NextChunk(open);
        internal::ZlibFallback fallback(format);
        const absl::Status status =
            fallback.Inflate(Slice(compressed, Slicing::kRandomCuts),
                             data.size(), &sink, committed, open_chunk);
        ASSERT_TRUE(status.ok()) << status;
        EXPECT_FALSE(sink.open());
        EXPECT_TRUE(sink.out() == data);
        EXPECT_LE(sink.given(), data.size() + 1);
        EXPECT_GT(fallback.HeapBytes(), 0u);
        fallback.Reset();
        // And the limit still counts from the message's first byte.
        CheckingSink short_sink;
        EXPECT_EQ(
            fallback.Inflate({compressed}, data.size() - 1, &short_sink).code(),
            absl::StatusCode::kResourceExhausted);
        EXPECT_LE(short_sink.given(), data.size());
        fallback.Reset();
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Hostile input: every backend answers as the zlib backend does.

class HostileInputTest : public testing::TestWithParam<Format> {
 protected:
  Format format() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(BothFormats, HostileInputTest,
                         testing::ValuesIn(kFormats),
                         [](const testing::TestParamInfo<Format>& info) {
                           return std::string(FormatName(info.param));
                         });

TEST_P(HostileInputTest, CorruptIsDataLoss) {
  const std::string data = TextLike(50000, 31);
  for (Backend producer : kAllBackends) {
    const std::string good =
        Compressed(producer, format(), kDefaultLevel, data);
    for (size_t at : {good.size() / 3, good.size() / 2, good.size() - 10,
                      good.size() - 3}) {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ 0x55);
      for (Backend reader : kAllBackends) {
        EXPECT_EQ(DecompressWith(reader, format(), {bad}, kNoLimit).code,
                  absl::StatusCode::kDataLoss)
            << BackendName(reader) << " reading " << BackendName(producer)
            << "'s stream corrupted at " << at << " of " << good.size();
      }
      ExpectSameAsZlib(format(), {bad}, kNoLimit, "corrupt");
      ExpectSameAsZlib(format(), Slice(bad, Slicing::kRandomCuts), 1000,
                       "corrupt, limit 1000");
    }
  }
}

TEST_P(HostileInputTest, GarbageAndEmptyInput) {
  const std::string garbage = RandomBytes(1000, 32);
  for (Backend reader : kAllBackends) {
    EXPECT_EQ(DecompressWith(reader, format(), {garbage}, kNoLimit).code,
              absl::StatusCode::kDataLoss)
        << BackendName(reader);
    EXPECT_EQ(DecompressWith(reader, format(), {""}, kNoLimit).code,
              absl::StatusCode::kDataLoss)
        << BackendName(reader);
    EXPECT_EQ(DecompressWith(reader, format(), {}, kNoLimit).code,
              absl::StatusCode::kDataLoss)
        << BackendName(reader);
  }
  ExpectSameAsZlib(format(), {garbage}, kNoLimit, "garbage");
  const std::string other = plain_zlib::Deflate(
      "x", format() == Format::kGzip ? Format::kZlib : Format::kGzip);
  ExpectSameAsZlib(format(), {other}, kNoLimit, "wrong format");
}

TEST_P(HostileInputTest, TruncatedAtManyPointsIsDataLoss) {
  const std::string data = TextLike(30000, 33);
  for (Backend producer : kAllBackends) {
    const std::string good =
        Compressed(producer, format(), kDefaultLevel, data);
    std::vector<size_t> cuts = {1, 2, 5, 9, 10, 11, 12, good.size() / 2};
    for (size_t back = 1; back <= 9; ++back) cuts.push_back(good.size() - back);
    for (size_t cut : cuts) {
      const absl::string_view truncated =
          absl::string_view(good).substr(0, cut);
      for (Backend reader : kAllBackends) {
        EXPECT_EQ(DecompressWith(reader, format(), {truncated}, kNoLimit).code,
                  absl::StatusCode::kDataLoss)
            << BackendName(reader) << " reading " << BackendName(producer)
            << "'s stream cut at " << cut << " of " << good.size();
      }
      ExpectSameAsZlib(format(), Slice(truncated, Slicing::kRandomCuts),
                       kNoLimit, absl::StrCat("truncated at ", cut));
      // With a limit below what the truncated stream still yields, zlib
      // says RESOURCE_EXHAUSTED, however far ahead a backend decoded.
      ExpectSameAsZlib(format(), {truncated}, 100,
                       absl::StrCat("truncated at ", cut, ", limit 100"));
    }
  }
}

TEST_P(HostileInputTest, TrailingBytesAndTwoMembersAreDataLoss) {
  const std::string data = TextLike(3000, 34);
  for (Backend producer : kAllBackends) {
    const std::string good =
        Compressed(producer, format(), kDefaultLevel, data);
    for (const std::string& bad : {good + "x", good + std::string(8, '\0'),
                                   good + good, good + std::string(1, '\0')}) {
      for (Backend reader : kAllBackends) {
        for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts}) {
          EXPECT_EQ(
              DecompressWith(reader, format(), Slice(bad, slicing), kNoLimit)
                  .code,
              absl::StatusCode::kDataLoss)
              << BackendName(reader) << " reading " << BackendName(producer)
              << "'s stream + " << bad.size() - good.size() << " bytes";
        }
      }
      ExpectSameAsZlib(format(), {bad}, kNoLimit, "trailing");
      // The trailing bytes as a separate piece, and after an empty one.
      ExpectSameAsZlib(format(),
                       {good, absl::string_view(bad).substr(good.size())},
                       kNoLimit, "trailing piece");
      ExpectSameAsZlib(format(),
                       {good, "", absl::string_view(bad).substr(good.size())},
                       kNoLimit, "trailing piece after an empty one");
    }
  }
}

// Random damage, compared with the zlib backend's answer: a small
// differential fuzz that runs on every build.
TEST_P(HostileInputTest, RandomDamageMatchesZlib) {
  std::mt19937 random(35);
  for (Backend producer : kAllBackends) {
    for (size_t size : {size_t{100}, size_t{5000}, 70 * kKiB}) {
      const std::string good =
          Compressed(producer, format(), kDefaultLevel, TextLike(size, 36));
      for (int round = 0; round < 60; ++round) {
        std::string bad = good;
        const int flips = 1 + static_cast<int>(random() % 3);
        for (int i = 0; i < flips; ++i) {
          bad[random() % bad.size()] ^= static_cast<char>(1 << (random() % 8));
        }
        const size_t limits[] = {kNoLimit, size, size / 2, 10};
        const size_t limit = limits[random() % 4];
        const Slicing slicing =
            round % 2 == 0 ? Slicing::kWhole : Slicing::kRandomCuts;
        ExpectSameAsZlib(format(), Slice(bad, slicing, round), limit,
                         absl::StrCat(BackendName(producer), " ", size,
                                      " bytes, round ", round));
      }
    }
  }
}

// A message in small pieces, corrupt past a small limit. Where zlib meets
// the limit against the error depends on how much it is given per call, so
// a fast decoder that reads the pieces gathered must leave zlib the pieces
// as they came (decode_diff_fuzzer's seed AQEF4FsQUFBQllBQ: this body,
// wrapped for what zlib makes of it, in 5-byte pieces under a limit of 8).
TEST_P(HostileInputTest, CorruptPastASmallLimitInSmallPieces) {
  const std::string data("\x5b\x10\x50\x50\x50\x96\x50\x50", 8);
  // zlib's reading of the body, which runs on into the zero trailer: the
  // body ends 14 bytes before where it stopped.
  const plain_zlib::Inflated read =
      plain_zlib::Inflate(Wrap(Format::kGzip, data, ""), Format::kGzip);
  ASSERT_GE(read.consumed, 14u);
  const std::string body = data.substr(0, read.consumed - 14);
  const std::string stream = Wrap(format(), body, read.output);
  std::vector<absl::string_view> pieces;
  for (size_t at = 0; at < stream.size(); at += 5) {
    pieces.push_back(absl::string_view(stream).substr(at, 5));
  }
  const Answer zlib = DecompressWith(Backend::kZlib, format(), pieces, 8);
  ASSERT_EQ(zlib.code, absl::StatusCode::kResourceExhausted) << zlib.message;
  ExpectSameAsZlib(format(), pieces, 8, "corrupt past the limit");
}

// ---------------------------------------------------------------------------
// Bodies zlib refuses that a fast decoder would take: hand-built deflate,
// wrapped with the checksum and size of what the lenient decoder makes of
// it, so that only zlib's rules on the body can refuse them.

// Bits least significant first, as deflate packs them.
class BitWriter {
 public:
  void Put(uint32_t value, int bits) {
    for (int i = 0; i < bits; ++i) PutBit((value >> i) & 1);
  }
  // Huffman codes go most significant bit first.
  void PutCode(uint32_t code, int length) {
    for (int i = length - 1; i >= 0; --i) PutBit((code >> i) & 1);
  }
  std::string Finish() {
    while (used_ != 0) PutBit(0);
    return bytes_;
  }

 private:
  void PutBit(uint32_t bit) {
    if (used_ == 0) bytes_.push_back('\0');
    bytes_.back() = static_cast<char>(bytes_.back() | (bit << used_));
    used_ = (used_ + 1) % 8;
  }
  std::string bytes_;
  int used_ = 0;
};

// The canonical codes of deflate for these lengths.
std::vector<uint32_t> CanonicalCodes(const std::vector<int>& lengths) {
  int count[16] = {};
  for (int length : lengths) ++count[length];
  count[0] = 0;
  uint32_t next[16] = {};
  uint32_t code = 0;
  for (int bits = 1; bits < 16; ++bits) {
    code = (code + count[bits - 1]) << 1;
    next[bits] = code;
  }
  std::vector<uint32_t> codes(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] != 0) codes[i] = next[lengths[i]]++;
  }
  return codes;
}

// A dynamic block's header for these code lengths. The code-length code
// gives 4 bits to each of 0..14 and to 18 (zeros, 11..138), so symbol s
// is code s and 18 is code 15; with `precode_without_18` 18 has no code,
// which leaves that code incomplete. `extra_zeros` makes the last run of
// zeros longer than the lengths, past the declared symbols.
struct DynamicHeader {
  std::vector<int> litlen;
  std::vector<int> dist;
  int extra_zeros = 0;
  bool precode_without_18 = false;
};

void PutDynamicHeader(const DynamicHeader& header, bool final_block,
                      BitWriter* out) {
  static constexpr int kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                     11, 4,  12, 3, 13, 2, 14, 1, 15};
  out->Put(final_block ? 1 : 0, 1);
  out->Put(2, 2);
  out->Put(static_cast<uint32_t>(header.litlen.size() - 257), 5);
  out->Put(static_cast<uint32_t>(header.dist.size() - 1), 5);
  out->Put(15, 4);
  for (int symbol : kOrder) {
    const bool coded =
        symbol < 15 || (symbol == 18 && !header.precode_without_18);
    out->Put(coded ? 4 : 0, 3);
  }
  std::vector<int> lengths = header.litlen;
  lengths.insert(lengths.end(), header.dist.begin(), header.dist.end());
  for (size_t i = 0; i < lengths.size();) {
    size_t run = 0;
    while (i + run < lengths.size() && lengths[i + run] == 0) ++run;
    const bool last_run = i + run == lengths.size();
    const size_t zeros = run + (last_run ? header.extra_zeros : 0);
    if (zeros >= 11 && !header.precode_without_18) {
      const size_t n = std::min<size_t>(zeros, 138);
      out->PutCode(15, 4);
      out->Put(static_cast<uint32_t>(n - 11), 7);
      i += std::min(n, run);
      if (last_run && n >= run) break;
      continue;
    }
    out->PutCode(static_cast<uint32_t>(lengths[i]), 4);
    ++i;
  }
}

// Literal/length lengths: `lengths` for the symbols listed, 0 for the rest.
std::vector<int> Lengths(size_t count, std::vector<std::pair<int, int>> set) {
  std::vector<int> lengths(count, 0);
  for (auto [symbol, length] : set) lengths[symbol] = length;
  return lengths;
}

// A complete code of `count` symbols with lengths `a` and `a + 1`.
std::vector<int> CompleteCode(size_t count, int a) {
  // n symbols of length a and m of a + 1: n + m = count, 2n + m = 2^(a+1).
  const size_t n = (size_t{1} << (a + 1)) - count;
  std::vector<int> lengths(count, a + 1);
  std::fill(lengths.begin(), lengths.begin() + n, a);
  return lengths;
}

struct StrictCase {
  std::string name;
  std::string body;    // raw deflate
  std::string output;  // what a decoder that takes the body makes of it
  const char* zlib_says;
  Backend lenient;  // the backend whose library takes the body as it is
  // Whether the library built against still takes it: a newer one may
  // have become strict, and the case then guards the next version.
  bool lenient_in_this_build = true;
};

// libdeflate 1.14 (Debian 12) takes a code-length repeat that runs past
// the last length; 1.25 (Debian sid) refuses it, as zlib does.
constexpr bool kLibdeflateRepeatsPastTheEnd =
    LIBDEFLATE_VERSION_MAJOR == 1 && LIBDEFLATE_VERSION_MINOR < 25;

// Fixed-code bits: literals 0..143 are 8 bits from 0x30, lengths 256..279
// 7 bits from 0, 280..287 8 bits from 0xc0; distances 5 bits.
void PutFixedLiteral(uint8_t literal, BitWriter* out) {
  ASSERT_LT(literal, 144);
  out->PutCode(0x30 + literal, 8);
}

// A fixed block's header, and 'a' as its first literal.
void PutFixedBlockOfA(bool final_block, BitWriter* out) {
  out->Put(final_block ? 1 : 0, 1);
  out->Put(1, 2);
  PutFixedLiteral('a', out);
}

// A Huffman codeword: its bits, most significant first, and its length.
struct Codeword {
  uint32_t bits;
  int length;
};

// The last block, a dynamic one after what `w` holds already: `header`,
// then `body`.
std::string LastDynamicBlock(const DynamicHeader& header,
                             const std::vector<Codeword>& body,
                             BitWriter w = BitWriter()) {
  PutDynamicHeader(header, true, &w);
  for (const Codeword& codeword : body) {
    w.PutCode(codeword.bits, codeword.length);
  }
  return w.Finish();
}

std::vector<StrictCase> StrictCases() {
  std::vector<StrictCase> cases;
  // A fixed block: 'a', then a reserved length symbol (libdeflate: 258)
  // at distance 1.
  for (int symbol : {286, 287}) {
    BitWriter w;
    PutFixedBlockOfA(true, &w);
    w.PutCode(0xc0 + (symbol - 280), 8);
    w.PutCode(0, 5);
    w.PutCode(0, 7);
    cases.push_back({absl::StrCat("fixed_litlen_", symbol), w.Finish(),
                     std::string(259, 'a'), "invalid literal/length code",
                     Backend::kLibdeflate});
  }
  // A fixed block making 24769 bytes of 'a' (matches of 258 at distance
  // 1), then copying 3 from a reserved distance symbol (libdeflate: 24577 +
  // 13 extra bits).
  for (int symbol : {30, 31}) {
    BitWriter w;
    PutFixedBlockOfA(true, &w);
    for (int i = 0; i < 96; ++i) {
      w.PutCode(0xc5, 8);  // 285: length 258
      w.PutCode(0, 5);
    }
    w.PutCode(1, 7);  // length 3
    w.PutCode(static_cast<uint32_t>(symbol), 5);
    w.Put(0, 13);
    w.PutCode(0, 7);
    cases.push_back({absl::StrCat("fixed_dist_", symbol), w.Finish(),
                     std::string(1 + 96 * 258 + 3, 'a'),
                     "invalid distance code", Backend::kLibdeflate});
  }
  // Dynamic headers declaring more symbols than deflate has: complete codes
  // over 287/288 literal/lengths or 31/32 distances, a body of "hi".
  const std::vector<std::pair<size_t, size_t>> counts = {
      {287, 1}, {288, 1}, {257, 31}, {257, 32}};
  for (auto [litlen_count, dist_count] : counts) {
    DynamicHeader header;
    header.litlen = CompleteCode(litlen_count, 8);
    header.dist =
        dist_count == 1 ? std::vector<int>{0} : CompleteCode(dist_count, 4);
    const std::vector<uint32_t> codes = CanonicalCodes(header.litlen);
    std::vector<Codeword> body;
    for (int symbol : {int{'h'}, int{'i'}, 256}) {
      body.push_back({codes[symbol], header.litlen[symbol]});
    }
    cases.push_back({absl::StrCat("dynamic_", litlen_count, "_", dist_count),
                     LastDynamicBlock(header, body), "hi",
                     "too many length or distance symbols",
                     Backend::kLibdeflate});
  }
  // The literal/length codes of the cases below: 'a' 0 and end-of-block 1;
  // or 'a' 0, end-of-block 10 and length 3 11.
  const std::vector<int> a_end = Lengths(257, {{'a', 1}, {256, 1}});
  const std::vector<int> a_end_3 = Lengths(258, {{'a', 1}, {256, 2}, {257, 2}});
  constexpr Codeword a = {0, 1};
  constexpr Codeword end_1 = {1, 1};
  constexpr Codeword end_2 = {2, 2};
  constexpr Codeword length_3 = {3, 2};
  // 'a' (1 bit, code 0) and end-of-block (2 bits, code 10): a literal/length
  // code with a codeword no symbol has; ISA-L takes it, never used.
  cases.push_back({"incomplete_litlen",
                   LastDynamicBlock({Lengths(257, {{'a', 1}, {256, 2}}), {0}},
                                    {a, a, a, a, a, end_2}),
                   "aaaaa", "invalid literal/lengths set", Backend::kIsal});
  // 'a', end-of-block and length 3; one 2-bit distance code (00): an
  // incomplete distance code, "a" then 3 more at distance 1.
  cases.push_back(
      {"incomplete_dist",
       LastDynamicBlock({a_end_3, {2, 0}}, {a, length_3, {0, 2}, end_2}),
       "aaaa", "invalid distances set", Backend::kIsal});
  // The code-length code without 18: incomplete.
  DynamicHeader without_18 = {a_end, {0}};
  without_18.precode_without_18 = true;
  cases.push_back({"incomplete_precode",
                   LastDynamicBlock(without_18, {a, a, end_1}), "aa",
                   "invalid code lengths set", Backend::kIsal});
  // A run of zeros 10 past the last distance length.
  DynamicHeader repeat_past_end = {a_end, {0}};
  repeat_past_end.extra_zeros = 10;
  cases.push_back({"repeat_past_end",
                   LastDynamicBlock(repeat_past_end, {a, a, a, end_1}), "aaa",
                   "invalid bit length repeat", Backend::kLibdeflate,
                   kLibdeflateRepeatsPastTheEnd});
  // One 1-bit distance code, and a match using its unused codeword 1
  // (libdeflate: the one distance, 1).
  cases.push_back(
      {"one_dist_code_other_bit",
       LastDynamicBlock({a_end_3, {1}}, {a, length_3, {1, 1}, end_2}), "aaaa",
       "invalid distance code", Backend::kLibdeflate});
  // No distance code at all, and a match (libdeflate: distance 1, 1 bit).
  cases.push_back(
      {"no_dist_code_used",
       LastDynamicBlock({a_end_3, {0}}, {a, length_3, {0, 1}, end_2}), "aaaa",
       "invalid distance code", Backend::kLibdeflate});
  // A fixed block with 'a', then a last block whose only literal/length
  // code is a 1-bit end-of-block, ended by the unused codeword 1.
  BitWriter fixed_a;
  PutFixedBlockOfA(false, &fixed_a);
  fixed_a.PutCode(0, 7);
  cases.push_back(
      {"one_litlen_code_other_bit",
       LastDynamicBlock({Lengths(257, {{256, 1}}), {0}}, {{1, 1}}, fixed_a),
       "a", "invalid literal/length code", Backend::kLibdeflate});
  return cases;
}

// Whether the library behind `backend` takes `body` as raw deflate, making
// `output` of it: the leniency a case is about, shown on the library alone.
bool LibraryTakes(Backend backend, const std::string& body,
                  const std::string& output) {
  std::string out(output.size() + 64, '\0');
  if (backend == Backend::kLibdeflate) {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    size_t produced = 0;
    const libdeflate_result result = libdeflate_deflate_decompress(
        d, body.data(), body.size(), out.data(), out.size(), &produced);
    libdeflate_free_decompressor(d);
    return result == LIBDEFLATE_SUCCESS && out.substr(0, produced) == output;
  }
  inflate_state state;
  isal_inflate_init(&state);
  state.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(body.data()));
  state.avail_in = static_cast<uint32_t>(body.size());
  state.next_out = reinterpret_cast<uint8_t*>(out.data());
  state.avail_out = static_cast<uint32_t>(out.size());
  state.crc_flag = ISAL_DEFLATE;
  const int result = isal_inflate_stateless(&state);
  return result == ISAL_DECOMP_OK &&
         out.substr(0, out.size() - state.avail_out) == output;
}

TEST(StrictDecodeTest, TheCasesProbeRealLeniencies) {
  for (const StrictCase& c : StrictCases()) {
    EXPECT_EQ(LibraryTakes(c.lenient, c.body, c.output),
              c.lenient_in_this_build)
        << c.name << ": " << BackendName(c.lenient)
        << (c.lenient_in_this_build
                ? " does not take it; the case tests nothing"
                : " takes it again");
    std::string plain;
    EXPECT_FALSE(plain_zlib::InflateOne(Wrap(Format::kGzip, c.body, c.output),
                                        Format::kGzip, &plain))
        << c.name << ": plain zlib takes it";
  }
}

// Held to zlib's rules, every backend refuses what zlib refuses, with
// zlib's words.
TEST(StrictDecodeTest, EveryBackendRefusesWhatZlibRefuses) {
  for (const StrictCase& c : StrictCases()) {
    for (Format format : kFormats) {
      const std::string stream = Wrap(format, c.body, c.output);
      for (size_t limit : {kNoLimit, c.output.size(), size_t{1}}) {
        for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts}) {
          const std::vector<absl::string_view> pieces = Slice(stream, slicing);
          const Answer zlib =
              DecompressWith(Backend::kZlib, format, pieces, limit);
          if (limit >= c.output.size()) {
            EXPECT_EQ(zlib.code, absl::StatusCode::kDataLoss) << c.name;
            EXPECT_NE(zlib.message.find(c.zlib_says), std::string::npos)
                << c.name << ": " << zlib.message;
          }
          for (Backend backend : {Backend::kLibdeflate, Backend::kIsal}) {
            const Answer got = DecompressWith(backend, format, pieces, limit,
                                              kNoLimit, Strictness::kZlib);
            EXPECT_EQ(got.code, zlib.code)
                << c.name << " " << FormatName(format) << " limit " << limit
                << " " << SlicingName(slicing) << ": " << BackendName(backend)
                << " said \"" << got.message << "\", zlib \"" << zlib.message
                << "\"";
            EXPECT_EQ(got.message, zlib.message)
                << c.name << " " << BackendName(backend);
            EXPECT_LE(got.given, limit == kNoLimit ? kNoLimit : limit + 1);
          }
        }
      }
    }
  }
}

// By default a fast decoder reads the message once, by its own rules: the
// library that takes a body zlib refuses takes it through the codec too
// (libdeflate only in gzip, which alone has the size its one pass needs),
// to the output whose checksum the stream carries, and only within the
// limit; over the limit, zlib decides.
TEST(DefaultDecodeTest, AFastDecoderMayTakeWhatOnlyItsLibraryTakes) {
  size_t taken = 0;
  for (const StrictCase& c : StrictCases()) {
    if (!c.lenient_in_this_build) continue;
    for (Format format : kFormats) {
      if (c.lenient == Backend::kLibdeflate && format != Format::kGzip) {
        continue;
      }
      const std::string stream = Wrap(format, c.body, c.output);
      for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts}) {
        const std::vector<absl::string_view> pieces = Slice(stream, slicing);
        const Answer got =
            DecompressWith(c.lenient, format, pieces, c.output.size());
        ASSERT_EQ(got.code, absl::StatusCode::kOk)
            << c.name << " " << FormatName(format) << " "
            << SlicingName(slicing) << ": " << got.message;
        EXPECT_TRUE(got.out == c.output) << c.name;
        ++taken;
        const Answer zlib =
            DecompressWith(Backend::kZlib, format, pieces, c.output.size() - 1);
        const Answer over =
            DecompressWith(c.lenient, format, pieces, c.output.size() - 1);
        EXPECT_EQ(over.code, zlib.code) << c.name << ": " << over.message;
        EXPECT_EQ(over.message, zlib.message) << c.name;
      }
    }
  }
  EXPECT_GT(taken, 0u);
}

// Bytes after a body only the fast decoder's library takes: the message is
// refused, in zlib's words (which find the body's fault first), not as
// trailing bytes.
TEST(DefaultDecodeTest, BytesAfterALenientBodyGetZlibsAnswer) {
  size_t checked = 0;
  for (const StrictCase& c : StrictCases()) {
    if (!c.lenient_in_this_build) continue;
    for (Format format : kFormats) {
      const std::string stream = Wrap(format, c.body, c.output) + "x";
      const std::vector<absl::string_view> pieces = {stream};
      const Answer zlib =
          DecompressWith(Backend::kZlib, format, pieces, kNoLimit);
      ASSERT_EQ(zlib.code, absl::StatusCode::kDataLoss) << c.name;
      const Answer got = DecompressWith(c.lenient, format, pieces, kNoLimit);
      EXPECT_EQ(got.code, zlib.code) << c.name << ": " << got.message;
      EXPECT_EQ(got.message, zlib.message)
          << c.name << " " << FormatName(format) << " by "
          << BackendName(c.lenient);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
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
