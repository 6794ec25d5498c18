// The zlib seam against real zlib: on gRPC core's exact call pattern
// (testing/core_zlib_calls.h) every message comes out as zlib's does and
// every stream zlib refuses is refused; any other pattern is zlib's own,
// byte for byte; a bomb stops at the cap; served streams are pooled and
// counted. The functions are called directly; activation points libgrpc's
// slots too, and decides which directions are served.

#include "seam/zlib_seam.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codec/format.h"
#include "codec/pools.h"
#include "core_zlib_calls.h"
#include "payloads.h"
#include "plain_zlib.h"
#include "pooled_gzip/pool_stats.h"
#include "pooled_gzip/pooled_gzip.h"
#include "seam/activation.h"
#include "traffic_totals.h"
#include "zeros_deflated.h"

namespace pooled_gzip::internal {
namespace {

using test_support::CoreCompress;
using test_support::CoreDecompress;
using test_support::RealZlib;
using test_support::Seam;
using test_support::SeamFor;
using test_support::Slices;
using test_support::ZlibEntryPoints;

constexpr Format kFormats[] = {Format::kGzip, Format::kDeflate};

std::string Inflated(Format format, const std::string& stream) {
  auto message = plain_zlib::InflateOne(stream, format);
  return message.ok() ? *message : "<zlib refused the stream>";
}

std::string ZlibStream(Format format, const std::string& message) {
  return plain_zlib::Deflate(message, format);
}

// Sizes around core's 1 KiB output blocks and the codec's buffers, and
// how the transport may cut them.
constexpr size_t kSizes[] = {0, 1, 1023, 1024, 1025, 65536, 3 << 20};
constexpr size_t kPieces[] = {1 << 30, 4096, 1000, 7};

// Until activation has seen a direction served, gRPC's streams in it are
// real zlib's, whatever allocator was learned: what activation reports is
// what runs. Each case runs in a process of its own (gtest_discover_tests),
// so this one starts before anything installs.
TEST(ZlibSeamBeforeActivation,
     GrpcsStreamsAreZlibsUntilTheirDirectionIsServed) {
  ASSERT_EQ(StateOf(/*compressing=*/true), ServingState::kOff)
      << "run in a process of its own";
  const std::string message = payloads::Make(payloads::Kind::kRecords, 8192);
  const uint64_t made = StreamsServedOnThisThread(/*compressing=*/true);
  const uint64_t inflated = StreamsServedOnThisThread(/*compressing=*/false);
  const auto stream =
      CoreCompress(Seam(), Format::kGzip, Slices(message, 3000));
  ASSERT_TRUE(stream.has_value());
  EXPECT_EQ(stream,
            CoreCompress(RealZlib(), Format::kGzip, Slices(message, 3000)));
  EXPECT_EQ(CoreDecompress(Seam(), Format::kGzip, Slices(*stream, 3000)),
            message);
  EXPECT_EQ(StreamsServedOnThisThread(/*compressing=*/true), made);
  EXPECT_EQ(StreamsServedOnThisThread(/*compressing=*/false), inflated);
  // While activation watches gRPC's codec on a thread, that thread's
  // streams are served, and seen so.
  {
    const RecognizingGrpcStreams observing;
    EXPECT_EQ(CoreDecompress(Seam(), Format::kGzip, Slices(*stream, 3000)),
              message);
  }
  EXPECT_EQ(StreamsServedOnThisThread(/*compressing=*/false), inflated + 1);
}

class ZlibSeamTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(InstallCoreCodec()); }
  void TearDown() override { ASSERT_TRUE(Configure(Options{}).ok()); }
};

TEST_F(ZlibSeamTest, CoresMessagesRoundTripThroughZlib) {
  for (Format format : kFormats) {
    for (size_t size : kSizes) {
      const std::string message =
          payloads::Make(payloads::Kind::kRecords, size, size);
      for (size_t piece : kPieces) {
        if (piece < 1000 && size > 65536) continue;  // 400k slices: slow
        SCOPED_TRACE(testing::Message() << FormatName(format) << ", " << size
                                        << " B in pieces of " << piece);
        const auto slices = Slices(message, piece);
        const std::optional<std::string> stream =
            CoreCompress(Seam(), format, slices);
        ASSERT_TRUE(stream.has_value());
        // No slices: core's loop never calls zlib, and declines the
        // message it did not shorten.
        EXPECT_EQ(Inflated(format, *stream),
                  size == 0 ? "<zlib refused the stream>" : message);
        const std::optional<std::string> inflated = CoreDecompress(
            Seam(), format, Slices(ZlibStream(format, message), piece));
        ASSERT_TRUE(inflated.has_value());
        EXPECT_EQ(*inflated, message);
      }
    }
  }
}

// Corrupt, truncated, followed by more bytes, a wrong check value, or
// mutated anywhere: refused exactly where zlib refuses, and the same bytes
// where it accepts.
TEST_F(ZlibSeamTest, CoreFailsTheMessagesZlibFails) {
  std::mt19937 random(42);
  for (Format format : kFormats) {
    const std::string message = payloads::Make(payloads::Kind::kProse, 20000);
    const std::string stream = ZlibStream(format, message);
    std::vector<std::string> cases = {stream.substr(0, stream.size() - 3),
                                      stream + "x", stream.substr(0, 5), "",
                                      std::string(40, '\x1f')};
    std::string bad_check = stream;
    bad_check.back() ^= 1;
    cases.push_back(bad_check);
    for (int i = 0; i < 300; ++i) {
      std::string mutated = stream;
      mutated[random() % mutated.size()] ^= 1 + random() % 255;
      cases.push_back(mutated);
    }
    int refused = 0;
    for (const std::string& input : cases) {
      for (size_t piece : {size_t{1} << 30, size_t{1000}}) {
        const auto slices = Slices(input, piece);
        const std::optional<std::string> zlib =
            CoreDecompress(RealZlib(), format, slices);
        const std::optional<std::string> seam =
            CoreDecompress(Seam(), format, slices);
        EXPECT_EQ(seam, zlib) << FormatName(format) << ", " << input.size()
                              << " B in pieces of " << piece;
        refused += !zlib.has_value();
      }
    }
    EXPECT_GT(refused, 2 * 6) << "the cases exercise refusals";
  }
}

// A stream with other parameters, and a served stream from its first other
// flush on, is real zlib's: the same bytes, check value and totals, and the
// same last answer. (A served stream writes nothing before it is handed
// over, so the bytes may be split over the calls otherwise.)
std::string DeflateWithFlushes(const ZlibEntryPoints& zlib, int level,
                               const std::string& message) {
  z_stream stream = test_support::CoresStream();
  if (zlib.deflate_init(&stream, level, Z_DEFLATED, MAX_WBITS + 16, 8,
                        Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                        sizeof(z_stream)) != Z_OK) {
    return "<init failed>";
  }
  std::string out;
  char block[300];
  const int flushes[] = {Z_NO_FLUSH, Z_SYNC_FLUSH, Z_NO_FLUSH, Z_FULL_FLUSH,
                         Z_FINISH};
  const size_t piece = message.size() / 5 + 1;
  for (int i = 0; i < 5; ++i) {
    const std::string part = message.substr(i * piece, piece);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(part.data()));
    stream.avail_in = static_cast<uInt>(part.size());
    int result;
    do {
      stream.next_out = reinterpret_cast<Bytef*>(block);
      stream.avail_out = sizeof(block);
      result = zlib.deflate(&stream, flushes[i]);
      out.append(block, sizeof(block) - stream.avail_out);
    } while (stream.avail_out == 0);
    if (i == 4) out += "|" + std::to_string(result) + "|";
  }
  out += std::to_string(stream.total_in) + "/" +
         std::to_string(stream.total_out) + "/" + std::to_string(stream.adler);
  zlib.deflate_end(&stream);
  return out;
}

TEST_F(ZlibSeamTest, OtherPatternsAreZlibsOwnByteForByte) {
  const std::string message = payloads::Make(payloads::Kind::kJson, 50000);
  for (int level : {Z_DEFAULT_COMPRESSION, 9, 1}) {
    EXPECT_EQ(DeflateWithFlushes(Seam(), level, message),
              DeflateWithFlushes(RealZlib(), level, message))
        << "level " << level;
  }
}

std::string InflateWithSyncFlush(const ZlibEntryPoints& zlib,
                                 const std::string& stream) {
  z_stream z = test_support::CoresStream();
  if (zlib.inflate_init(&z, MAX_WBITS + 16, ZLIB_VERSION, sizeof(z_stream)) !=
      Z_OK) {
    return "<init failed>";
  }
  std::string out;
  char block[500];
  const size_t half = stream.size() / 2;
  for (int i = 0; i < 2; ++i) {
    const std::string part =
        i == 0 ? stream.substr(0, half) : stream.substr(half);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(part.data()));
    z.avail_in = static_cast<uInt>(part.size());
    int result;
    do {
      z.next_out = reinterpret_cast<Bytef*>(block);
      z.avail_out = sizeof(block);
      result = zlib.inflate(&z, i == 0 ? Z_NO_FLUSH : Z_SYNC_FLUSH);
      out.append(block, sizeof(block) - z.avail_out);
    } while (z.avail_out == 0 && result == Z_OK);
    if (i == 1) out += "|" + std::to_string(result) + "|";
  }
  out += std::to_string(z.total_in) + "/" + std::to_string(z.total_out) + "/" +
         std::to_string(z.adler);
  zlib.inflate_end(&z);
  return out;
}

TEST_F(ZlibSeamTest, InflatingWithAnotherFlushIsZlibsOwn) {
  const std::string stream =
      ZlibStream(Format::kGzip, payloads::Make(payloads::Kind::kSource, 90000));
  EXPECT_EQ(InflateWithSyncFlush(Seam(), stream),
            InflateWithSyncFlush(RealZlib(), stream));
}

// A stream real zlib opened (before the slots were pointed, or while only
// the passing ones are) goes on in real zlib through the seam's passing
// functions.
TEST_F(ZlibSeamTest, StreamsZlibOpenedStayZlibs) {
  const std::string message = payloads::Make(payloads::Kind::kWords, 30000);
  const ZlibEntryPoints opened_by_zlib = SeamFor(ZlibEntryRole::kPassing);
  for (Format format : kFormats) {
    const auto slices = Slices(message, 4096);
    EXPECT_EQ(CoreCompress(opened_by_zlib, format, slices),
              CoreCompress(RealZlib(), format, slices));
    const auto stream = Slices(ZlibStream(format, message), 4096);
    EXPECT_EQ(CoreDecompress(opened_by_zlib, format, stream), message);
  }
}

// An allocator of a caller's own, not gRPC's.
void* OwnAllocate(void* /*opaque*/, unsigned items, unsigned size) {
  return std::calloc(items, size);
}
void OwnFree(void* /*opaque*/, void* address) { std::free(address); }

// A caller that is not gRPC, on zlib's default allocator or on one of its
// own, may feed a whole stream with Z_NO_FLUSH and expect its end, as zlib
// gives it. (With the static flavour every zlib call of the program comes
// through the seam.)
TEST_F(ZlibSeamTest, StreamsOfOtherAllocatorsAreZlibs) {
  const std::string message = payloads::Make(payloads::Kind::kProse, 20000);
  const std::string stream = ZlibStream(Format::kDeflate, message);
  const uint64_t served = StreamsServedOnThisThread(/*compressing=*/false);
  for (const bool own_allocator : {false, true}) {
    z_stream z{};
    if (own_allocator) {
      z.zalloc = &OwnAllocate;
      z.zfree = &OwnFree;
    }
    ASSERT_EQ(SeamInflateInit2(&z, MAX_WBITS, ZLIB_VERSION, sizeof(z_stream)),
              Z_OK);
    std::string out(message.size() + 100, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
    z.avail_in = static_cast<uInt>(stream.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(SeamInflate(&z, Z_NO_FLUSH), Z_STREAM_END)
        << "own allocator: " << own_allocator;
    out.resize(z.total_out);
    EXPECT_EQ(out, message) << "own allocator: " << own_allocator;
    EXPECT_EQ(SeamInflateEnd(&z), Z_OK);
  }
  EXPECT_EQ(StreamsServedOnThisThread(/*compressing=*/false), served);
}

TEST_F(ZlibSeamTest, ABombStopsAtTheCap) {
  Options options;
  options.max_decompressed_bytes = 8 << 20;
  ASSERT_TRUE(Configure(options).ok());
  for (Format format : kFormats) {
    const std::string bomb = plain_zlib::DeflateWithZeros(
        "", uint64_t{64} << 20,
        format == Format::kGzip ? MAX_WBITS + 16 : MAX_WBITS);
    const uint64_t refused =
        test_support::Totals(/*compressing=*/false).refused;
    EXPECT_EQ(CoreDecompress(Seam(), format, Slices(bomb, 8192)), std::nullopt);
    EXPECT_EQ(test_support::Totals(/*compressing=*/false).refused, refused + 1);
    // The cap is exact: a message of exactly the cap inflates.
    const std::string at_cap = plain_zlib::DeflateWithZeros(
        "", 8 << 20, format == Format::kGzip ? MAX_WBITS + 16 : MAX_WBITS);
    const auto inflated = CoreDecompress(Seam(), format, Slices(at_cap, 8192));
    ASSERT_TRUE(inflated.has_value());
    EXPECT_EQ(inflated->size(), size_t{8} << 20);
  }
}

TEST_F(ZlibSeamTest, ServedStreamsArePooledAndCounted) {
  const std::string message = payloads::Make(payloads::Kind::kRecords, 8192);
  const uint64_t made = StreamsServedOnThisThread(/*compressing=*/true);
  const uint64_t inflated = StreamsServedOnThisThread(/*compressing=*/false);
  const PoolStats before = GetPoolStats();
  for (int i = 0; i < 10; ++i) {
    const auto stream =
        CoreCompress(Seam(), Format::kGzip, Slices(message, 3000));
    ASSERT_TRUE(stream.has_value());
    ASSERT_EQ(CoreDecompress(Seam(), Format::kGzip, Slices(*stream, 3000)),
              message);
  }
  EXPECT_EQ(StreamsServedOnThisThread(/*compressing=*/true), made + 10);
  EXPECT_EQ(StreamsServedOnThisThread(/*compressing=*/false), inflated + 10);
  const PoolStats after = GetPoolStats();
  EXPECT_GE(after.writers.reused - before.writers.reused, 9u);
  EXPECT_GE(after.readers.reused - before.readers.reused, 9u);
  // A stream zlib serves is not counted.
  EXPECT_TRUE(CoreCompress(RealZlib(), Format::kGzip, {message}).has_value());
  EXPECT_EQ(StreamsServedOnThisThread(/*compressing=*/true), made + 10);
}

// A stream's buffers go back to the pool when it ends, counted in
// max_pooled_bytes: the next message of the size allocates none, and a
// cap that cannot hold them frees them.
TEST_F(ZlibSeamTest, StreamBuffersArePooledWithinTheByteCap) {
  const std::string message =
      payloads::Make(payloads::Kind::kRecords, size_t{1} << 20);
  const auto pieces = Slices(ZlibStream(Format::kGzip, message), 16384);
  ASSERT_EQ(CoreDecompress(Seam(), Format::kGzip, pieces), message);
  const PoolCounters kept = Buffers().Stats();
  EXPECT_GE(kept.pooled_bytes, message.size()) << "the message's buffer";
  EXPECT_EQ(GetPoolStats().pooled_bytes,
            GetPoolStats().writers.pooled_bytes +
                GetPoolStats().readers.pooled_bytes + kept.pooled_bytes);

  ASSERT_EQ(CoreDecompress(Seam(), Format::kGzip, pieces), message);
  const PoolCounters again = Buffers().Stats();
  EXPECT_EQ(again.reused, kept.reused + 1);
  EXPECT_EQ(again.pooled_bytes, kept.pooled_bytes) << "the buffers grew again";

  // Room for all else that is idle, and half the message: the buffers go
  // at once, and the next message's are pooled without their heap.
  Options options = GetOptions();
  options.max_pooled_bytes =
      GetPoolStats().pooled_bytes - again.pooled_bytes + message.size() / 2;
  ASSERT_TRUE(Configure(options).ok());
  EXPECT_LT(Buffers().Stats().pooled_bytes, size_t{64} << 10)
      << "buffers kept past a lowered cap";
  ASSERT_EQ(CoreDecompress(Seam(), Format::kGzip, pieces), message);
  const PoolCounters capped = Buffers().Stats();
  EXPECT_LT(capped.pooled_bytes, size_t{64} << 10)
      << "buffers kept past the cap";
  EXPECT_GE(capped.pooled, 1u);
  EXPECT_EQ(capped.rejected_by_caps, again.rejected_by_caps);
}

}  // namespace
}  // namespace pooled_gzip::internal
