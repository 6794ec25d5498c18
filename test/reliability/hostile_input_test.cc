// Hostile input for the raw-mode decoder: corrupt, truncated, wrong-format
// and trailing-garbage messages, and a decompression bomb, each fed directly
// to pooled_gzip::DecodeToString and through a real raw-mode server on
// loopback. Every one must end in the error status raw_mode.h lists, the
// bomb must stop at the limit without allocating past it, and the server
// must keep serving. The edges beside them (an empty message, a buffer with
// no message) get what stock gRPC's own readers give.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "echo_client_lib.h"
#include "glue/byte_buffer_access.h"
#include "hostile_inputs.h"
#include "message_codec.h"
#include "plain_zlib.h"
#include "pool_at_rest.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"
#include "raw_echo.h"

namespace pooled_gzip::reliability {
namespace {

using echo::EchoRequest;
using echo::EchoResponse;
using internal::Format;
using internal::FormatName;

grpc_compression_algorithm AlgorithmOf(Format format) {
  return format == Format::kGzip ? GRPC_COMPRESS_GZIP : GRPC_COMPRESS_DEFLATE;
}

Format OtherFormat(Format format) {
  return format == Format::kGzip ? Format::kDeflate : Format::kGzip;
}

std::string Message(size_t size, uint32_t seed = 5) {
  EchoRequest request;
  request.set_payload(echo::MakePayload(size, seed));
  return request.SerializeAsString();
}

// Nothing checked out and forgotten: every live context is idle in some
// thread's free list once no call is in flight.
void ExpectNoContextOutstanding() {
  PoolStats stats;
  EXPECT_TRUE(PoolComesToRest(&stats)) << ToString(stats);
}

// A format, and the size of the slices the message arrives in (gRPC hands
// over a message in as many slices as it came in frames).
using DecodeParam = std::tuple<Format, size_t>;

class RawDecoderTest : public testing::TestWithParam<DecodeParam> {
 protected:
  Format format() const { return std::get<0>(GetParam()); }
  size_t slice_bytes() const { return std::get<1>(GetParam()); }

  grpc::Status Decode(absl::string_view bytes, std::string* out,
                      size_t limit = kDefaultMaxMessageBytes) {
    return Decode(bytes, AlgorithmOf(format()), out, limit);
  }
  grpc::Status Decode(absl::string_view bytes,
                      grpc_compression_algorithm algorithm, std::string* out,
                      size_t limit = kDefaultMaxMessageBytes) {
    return DecodeToString(FlaggedBuffer(bytes, algorithm, slice_bytes()), out,
                          limit);
  }

  // The decoder that just failed left nothing behind: a good message still
  // decodes on this thread, from the pool.
  void ExpectStillDecodes() {
    const std::string message = Message(3000, 99);
    std::string out;
    const grpc::Status status =
        Decode(plain_zlib::Deflate(message, format()), &out);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(out, message);
    ExpectNoContextOutstanding();
  }
};

TEST_P(RawDecoderTest, CorruptBodyIsDataLoss) {
  const std::string good = plain_zlib::Deflate(Message(4096), format());
  int failures = 0;
  // Past gzip's 10-byte header (whose mtime and OS bytes nobody checks),
  // each flipped byte breaks the deflate data or a checksum.
  for (size_t i = 10; i < good.size(); i += 7) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0xa5);
    std::string out;
    const grpc::Status status = Decode(bad, &out);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS)
        << "byte " << i << ": " << status.error_message();
    EXPECT_TRUE(out.empty()) << "byte " << i;
    ++failures;
  }
  EXPECT_GT(failures, 50);
  ExpectStillDecodes();
}

TEST_P(RawDecoderTest, EveryTruncationIsDataLoss) {
  const std::string good = plain_zlib::Deflate(Message(600), format());
  // From 1: no bytes at all is the empty message
  // (RawDecoder.EmptyMessageIsEmptyAsStockDecodesIt).
  for (size_t length = 1; length < good.size(); ++length) {
    std::string out;
    const grpc::Status status = Decode(good.substr(0, length), &out);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS)
        << "prefix " << length << " of " << good.size();
    EXPECT_TRUE(out.empty());
  }
  ExpectStillDecodes();
}

TEST_P(RawDecoderTest, WrongFormatIsDataLoss) {
  // zlib bytes flagged as gzip, and gzip bytes flagged as deflate.
  const std::string message = Message(2048);
  std::string out;
  const grpc::Status status =
      Decode(plain_zlib::Deflate(message, OtherFormat(format())), &out);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS)
      << status.error_message();
  EXPECT_TRUE(out.empty());
  ExpectStillDecodes();
}

TEST_P(RawDecoderTest, GarbageAndTrailingBytesAreDataLoss) {
  const std::string good = plain_zlib::Deflate(Message(1024), format());
  const std::vector<std::string> hostile = {
      "not compressed at all",
      std::string(4096, '\0'),
      std::string(4096, '\xff'),
      good + "x",
      good + good,
      // A valid header, then nothing but noise.
      good.substr(0, 10) + std::string(1000, '\x5a'),
  };
  for (size_t i = 0; i < hostile.size(); ++i) {
    std::string out;
    const grpc::Status status = Decode(hostile[i], &out);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS)
        << "case " << i << ": " << status.error_message();
    EXPECT_TRUE(out.empty()) << "case " << i;
  }
  ExpectStillDecodes();
}

TEST_P(RawDecoderTest, UnknownAlgorithmIsInvalidArgument) {
  std::string out;
  const grpc::Status status =
      Decode(plain_zlib::Deflate(Message(100), format()),
             GRPC_COMPRESS_ALGORITHMS_COUNT, &out);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_P(RawDecoderTest, SmallBombStopsAtTheLimit) {
  // 64 MiB of zeros under a 1 MiB limit: the error, not the zeros.
  const std::string bomb = ZeroBomb(64 * kMiB, format());
  const PoolStats before = GetPoolStats();
  std::string out;
  const grpc::Status status = Decode(bomb, &out, kMiB);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << status.error_message();
  EXPECT_TRUE(out.empty());
  EXPECT_LE(out.capacity(), 4 * kMiB);  // never grew towards 64 MiB
  // The reader that hit the limit is destroyed, never pooled.
  EXPECT_EQ(GetPoolStats().discarded, before.discarded + 1);
  ExpectStillDecodes();
}

// Raw mode does not allocate past the limit: the string a message
// inflates into never has room for more than the limit and the one byte
// that tells a message past it, whether the message fits or not.
TEST_P(RawDecoderTest, OutputNeverHasRoomPastTheLimit) {
  constexpr size_t kLimit = 300 * 1000;
  for (size_t size : {kLimit - 1000, kLimit, kLimit + 1, 4 * kLimit}) {
    const std::string message = echo::MakePayload(size, 17);
    std::string out;
    const grpc::Status status =
        Decode(plain_zlib::Deflate(message, format()), &out, kLimit);
    EXPECT_EQ(status.ok(), size <= kLimit) << size << " B";
    EXPECT_LE(out.capacity(), kLimit + 1) << size << " B";
  }
  std::string out;
  EXPECT_EQ(Decode(ZeroBomb(64 * kMiB, format()), &out, kLimit).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_LE(out.capacity(), kLimit + 1) << "bomb";
}

INSTANTIATE_TEST_SUITE_P(
    FormatsAndSlices, RawDecoderTest,
    testing::Combine(testing::Values(Format::kGzip, Format::kDeflate),
                     testing::Values(~size_t{0}, size_t{7})),
    [](const testing::TestParamInfo<DecodeParam>& info) {
      return std::string(std::get<0>(info.param) == Format::kGzip ? "Gzip"
                                                                  : "Zlib") +
             (std::get<1>(info.param) == 7 ? "In7ByteSlices" : "OneSlice");
    });

// A 0-byte message sent compressed comes with no slices; gRPC's own
// decoder reads that as the empty message. One empty slice is a stream cut
// short to both (core's loop inflates it and finds no end).
TEST(RawDecoder, EmptyMessageIsEmptyAsStockDecodesIt) {
  for (const auto& [algorithm, slices] :
       {std::pair{GRPC_COMPRESS_GZIP, size_t{0}},
        std::pair{GRPC_COMPRESS_GZIP, size_t{1}},
        std::pair{GRPC_COMPRESS_DEFLATE, size_t{0}},
        std::pair{GRPC_COMPRESS_DEFLATE, size_t{1}}}) {
    const grpc::Slice empty;
    grpc::ByteBuffer buffer(&empty, slices);
    internal::CByteBuffer(buffer)->data.raw.compression = algorithm;
    ASSERT_EQ(internal::CByteBuffer(buffer)->data.raw.slice_buffer.count,
              slices);
    grpc_slice_buffer stock;
    grpc_slice_buffer_init(&stock);
    const int stock_ok = grpc_msg_decompress(
        algorithm, &internal::CByteBuffer(buffer)->data.raw.slice_buffer,
        &stock);
    EXPECT_EQ(stock_ok, slices == 0 ? 1 : 0)
        << algorithm << ", " << slices << " slices";
    EXPECT_EQ(stock.length, 0u);
    grpc_slice_buffer_destroy(&stock);

    std::string out = "left over";
    const grpc::Status status = DecodeToString(buffer, &out);
    EXPECT_EQ(status.ok(), stock_ok == 1)
        << algorithm << ", " << slices << " slices: " << status.error_code()
        << " " << status.error_message();
    if (!status.ok()) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS);
    }
    EXPECT_EQ(out, "");
    EchoRequest request;
    request.set_payload("left over");
    EXPECT_EQ(DecodeMessage(buffer, &request).ok(), stock_ok == 1)
        << algorithm << ", " << slices << " slices";
    if (stock_ok == 1) {
      EXPECT_EQ(request.payload(), "");
    }
  }
}

// A buffer given no message (default-constructed, or left so by a Read that
// returned false) is not the empty message: stock gRPC's own readers refuse
// it too, ByteBuffer::Dump and the protobuf deserializer alike.
TEST(RawDecoder, BufferWithNoMessageIsFailedPrecondition) {
  grpc::ByteBuffer none;
  EchoRequest request;
  EXPECT_FALSE(
      grpc::SerializationTraits<EchoRequest>::Deserialize(&none, &request)
          .ok());
  std::string out = "left over";
  grpc::Status status = DecodeToString(none, &out);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << status.error_message();
  EXPECT_EQ(out, "");
  status = DecodeMessage(none, &request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << status.error_message();
}

TEST(RawDecoder, PlainMessagePastTheLimitIsResourceExhausted) {
  const std::string message = Message(1000);
  const grpc::Slice slice(message.data(), message.size());
  const grpc::ByteBuffer buffer(&slice, 1);
  std::string out;
  EXPECT_TRUE(DecodeToString(buffer, &out, message.size()).ok());
  EXPECT_EQ(out, message);
  EXPECT_EQ(DecodeToString(buffer, &out, message.size() - 1).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(out, "");
}

TEST(RawDecoder, BytesThatDoNotParseAreInvalidArgument) {
  // A length-delimited field 1 whose length runs past the end.
  const std::string bytes = "\x0a\x7f" + Message(20);
  EchoRequest request;
  const grpc::Status status =
      DecodeMessage(FlaggedBuffer(plain_zlib::Deflate(bytes, Format::kGzip),
                                  GRPC_COMPRESS_GZIP),
                    &request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << status.error_message();
}

// The 1 GiB bomb of the issue, measured with the kernel's peak RSS. Each
// CTest test is its own process, so the peak is this test's alone.
class GigabyteBombTest : public testing::TestWithParam<Format> {};

TEST_P(GigabyteBombTest, StopsAtTheLimitWithoutAllocatingPastIt) {
  const std::string bomb = ZeroBomb(kGiB, GetParam());
  ASSERT_LT(bomb.size(), 2 * kMiB);
  const grpc::ByteBuffer buffer =
      FlaggedBuffer(bomb, AlgorithmOf(GetParam()), 16 * 1024);
  ASSERT_TRUE(ResetPeakRss());
  const size_t rss_before = CurrentRssBytes();
  std::string out;
  const grpc::Status status = DecodeToString(buffer, &out);
  const size_t peak = PeakRssBytes();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << status.error_message();
  EXPECT_TRUE(out.empty());
  const size_t growth = peak > rss_before ? peak - rss_before : 0;
  std::printf(
      "bomb %s: %zu bytes inflating to 1 GiB, limit %zu bytes; RSS before "
      "%.1f MiB, peak during decode %.1f MiB (+%.1f MiB)\n",
      std::string(FormatName(GetParam())).c_str(), bomb.size(),
      kDefaultMaxMessageBytes, rss_before / double(kMiB), peak / double(kMiB),
      growth / double(kMiB));
  RecordProperty("peak_rss_growth_bytes", std::to_string(growth));
  // The limit is 4 MiB, which the string never has room past; the decoder
  // holds its own state, and sanitizers add shadow memory. Inflating the
  // bomb would cost 1 GiB.
  EXPECT_LT(growth, 64 * kMiB);
}

INSTANTIATE_TEST_SUITE_P(BothFormats, GigabyteBombTest,
                         testing::Values(Format::kGzip, Format::kDeflate),
                         [](const testing::TestParamInfo<Format>& info) {
                           return std::string(
                               info.param == Format::kGzip ? "Gzip" : "Zlib");
                         });

// Sends `bytes` flagged with `algorithm` to the raw server, as a client
// whose call really uses that algorithm.
grpc::Status SendFlagged(const std::shared_ptr<grpc::Channel>& channel,
                         absl::string_view bytes,
                         grpc_compression_algorithm algorithm) {
  grpc::ClientContext context;
  context.set_compression_algorithm(algorithm);
  grpc::ByteBuffer reply;
  return echo::RawUnary(channel, &context,
                        FlaggedBuffer(bytes, algorithm, 16 * 1024), &reply);
}

void ExpectServerStillServes(const std::shared_ptr<grpc::Channel>& channel) {
  auto stub = echo::Echo::NewStub(channel);
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  EchoRequest request;
  request.set_payload(echo::MakePayload(5000, 3));
  EchoResponse response;
  const grpc::Status status = stub->Unary(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.payload(), request.payload());
}

TEST(HostileOverTheWire, EachFailsItsCallAndTheServerKeepsServing) {
  echo::RawServer raw = echo::StartRawServer(/*with_plugin=*/true);
  auto channel =
      grpc::CreateChannel(raw.target(), grpc::InsecureChannelCredentials());
  const std::string message = Message(8192);
  for (Format format : {Format::kGzip, Format::kDeflate}) {
    const std::string good = plain_zlib::Deflate(message, format);
    std::string corrupt = good;
    corrupt[good.size() / 2] = static_cast<char>(corrupt[good.size() / 2] ^ 1);
    struct Case {
      const char* name;
      std::string bytes;
    };
    const std::vector<Case> cases = {
        {"corrupt", corrupt},
        {"truncated", good.substr(0, good.size() - 3)},
        {"wrong format", plain_zlib::Deflate(message, OtherFormat(format))},
        {"trailing bytes", good + "!"},
        {"not compressed", message},
    };
    for (const Case& c : cases) {
      const grpc::Status status =
          SendFlagged(channel, c.bytes, AlgorithmOf(format));
      EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS)
          << FormatName(format) << " " << c.name << ": "
          << status.error_message();
      ExpectServerStillServes(channel);
    }
  }
  raw.server->Shutdown();
  ExpectNoContextOutstanding();
}

TEST(HostileOverTheWire, GigabyteBombIsRefusedAtTheLimit) {
  echo::RawServer raw = echo::StartRawServer(/*with_plugin=*/true);
  auto channel =
      grpc::CreateChannel(raw.target(), grpc::InsecureChannelCredentials());
  ExpectServerStillServes(channel);  // connected and warm before measuring
  const std::string bomb = ZeroBomb(kGiB, Format::kGzip);
  ASSERT_TRUE(ResetPeakRss());
  const size_t rss_before = CurrentRssBytes();
  const grpc::Status status = SendFlagged(channel, bomb, GRPC_COMPRESS_GZIP);
  const size_t peak = PeakRssBytes();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << status.error_message();
  const size_t growth = peak > rss_before ? peak - rss_before : 0;
  std::printf(
      "bomb over the wire (client and raw-mode server in one process): RSS "
      "before %.1f MiB, peak during the call %.1f MiB (+%.1f MiB)\n",
      rss_before / double(kMiB), peak / double(kMiB), growth / double(kMiB));
  RecordProperty("peak_rss_growth_bytes", std::to_string(growth));
  EXPECT_LT(growth, 64 * kMiB);
  ExpectServerStillServes(channel);
  raw.server->Shutdown();
  ExpectNoContextOutstanding();
}

}  // namespace
}  // namespace pooled_gzip::reliability
