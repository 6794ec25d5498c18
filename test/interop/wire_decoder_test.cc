// Self-test of the wire witness: the decoder must see exactly what was put
// on the wire, however the bytes are chunked, through padding and
// CONTINUATION frames, and must call corrupt data corrupt.

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <string>
#include <utility>
#include <vector>

#include "connection_decoder.h"
#include "http2_frame.h"
#include "plain_zlib.h"

namespace pooled_gzip::interop {
namespace {

// Header blocks as a peer would encode them.
class HeaderEncoder {
 public:
  HeaderEncoder() { nghttp2_hd_deflate_new(&deflater_, 4096); }
  ~HeaderEncoder() { nghttp2_hd_deflate_del(deflater_); }

  std::string Encode(
      const std::vector<std::pair<std::string, std::string>>& fields) {
    std::vector<nghttp2_nv> nva;
    for (const auto& [name, value] : fields) {
      nva.push_back(
          {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
           reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())),
           name.size(), value.size(), NGHTTP2_NV_FLAG_NONE});
    }
    std::string block(
        nghttp2_hd_deflate_bound(deflater_, nva.data(), nva.size()), '\0');
    const ssize_t n = nghttp2_hd_deflate_hd(
        deflater_, reinterpret_cast<uint8_t*>(block.data()), block.size(),
        nva.data(), nva.size());
    block.resize(n < 0 ? 0 : n);
    return block;
  }

 private:
  nghttp2_hd_deflater* deflater_ = nullptr;
};

std::string Padded(absl::string_view content, uint8_t padding) {
  std::string payload(1, static_cast<char>(padding));
  payload.append(content.data(), content.size());
  payload.append(padding, '\0');
  return payload;
}

// Feeds `bytes` in chunks of `chunk` bytes.
void FeedChunked(ConnectionDecoder* decoder, Direction direction,
                 const std::string& bytes, size_t chunk) {
  for (size_t at = 0; at < bytes.size(); at += chunk) {
    decoder->Feed(direction, absl::string_view(bytes).substr(at, chunk));
  }
}

class WireDecoderTest : public testing::TestWithParam<size_t> {};

TEST_P(WireDecoderTest, SeesHeadersFlagsAndInflatedMessages) {
  const std::string message(5000, 'm');
  const std::string gzip = plain_zlib::Deflate(message, "gzip").value();
  const std::string corrupt = gzip.substr(0, gzip.size() - 4) + "oops";

  HeaderEncoder client_headers;
  std::string client(kClientPreface.data(), kClientPreface.size());
  AppendFrame(&client, kSettings, 0, 0, "");
  // Request headers split over HEADERS (padded) and CONTINUATION.
  const std::string block =
      client_headers.Encode({{":method", "POST"},
                             {":path", "/pkg.Svc/Method"},
                             {"content-type", "application/grpc"},
                             {"grpc-encoding", "gzip"}});
  AppendFrame(&client, kHeaders, kPadded, 1,
              Padded(absl::string_view(block).substr(0, 5), 3));
  AppendFrame(&client, kContinuation, kEndHeaders, 1,
              absl::string_view(block).substr(5));
  // Three messages: compressed split over two DATA frames, plain, corrupt.
  const std::string data = GrpcFrame(true, gzip) + GrpcFrame(false, "plain") +
                           GrpcFrame(true, corrupt);
  AppendFrame(&client, kData, 0, 1, absl::string_view(data).substr(0, 7));
  AppendFrame(&client, kData, kPadded | kEndStream, 1,
              Padded(absl::string_view(data).substr(7), 9));

  HeaderEncoder server_headers;
  std::string server;
  AppendFrame(&server, kSettings, 0, 0, "");
  AppendFrame(&server, kHeaders, kEndHeaders, 1,
              server_headers.Encode({{":status", "200"}}));
  AppendFrame(&server, kData, 0, 1, GrpcFrame(false, "reply"));
  AppendFrame(&server, kHeaders, kEndHeaders | kEndStream, 1,
              server_headers.Encode({{"grpc-status", "0"}}));

  ConnectionDecoder decoder(7);
  FeedChunked(&decoder, kClientToServer, client, GetParam());
  FeedChunked(&decoder, kServerToClient, server, GetParam());

  const ConnectionRecord& record = decoder.record();
  EXPECT_TRUE(record.errors.empty());
  ASSERT_EQ(record.streams.count(1), 1u);
  const StreamRecord& stream = record.streams.at(1);
  EXPECT_EQ(stream.connection, 7);
  EXPECT_EQ(stream.path(), "/pkg.Svc/Method");
  EXPECT_EQ(stream.encoding(kClientToServer), "gzip");
  EXPECT_EQ(stream.encoding(kServerToClient), "");
  EXPECT_EQ(stream.grpc_status(), 0);
  EXPECT_TRUE(stream.client().end_stream);
  EXPECT_TRUE(stream.server().end_stream);

  const std::vector<WireMessage>& requests = stream.client().messages;
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_TRUE(requests[0].compressed_flag);
  EXPECT_TRUE(requests[0].ok()) << requests[0].error;
  EXPECT_EQ(requests[0].bytes, message);
  EXPECT_EQ(requests[0].wire_bytes, gzip.size());
  EXPECT_FALSE(requests[1].compressed_flag);
  EXPECT_EQ(requests[1].bytes, "plain");
  EXPECT_TRUE(requests[2].compressed_flag);
  EXPECT_FALSE(requests[2].ok());
  ASSERT_EQ(stream.server().messages.size(), 1u);
  EXPECT_EQ(stream.server().messages[0].bytes, "reply");
}

INSTANTIATE_TEST_SUITE_P(Chunking, WireDecoderTest,
                         testing::Values(1, 3, 1000, 1 << 20));

TEST(WireDecoder, FlagWithoutEncodingAndCutMessagesAreReported) {
  HeaderEncoder encoder;
  std::string client(kClientPreface.data(), kClientPreface.size());
  AppendFrame(&client, kHeaders, kEndHeaders, 1,
              encoder.Encode({{":path", "/pkg.Svc/M"}}));
  const std::string frame = GrpcFrame(true, "not gzip");
  AppendFrame(&client, kData, 0, 1, frame);
  AppendFrame(&client, kData, kEndStream, 1,
              absl::string_view(frame).substr(0, 6));
  ConnectionDecoder decoder(0);
  decoder.Feed(kClientToServer, client);
  const StreamRecord& stream = decoder.record().streams.at(1);
  ASSERT_EQ(stream.client().messages.size(), 1u);
  EXPECT_FALSE(stream.client().messages[0].ok());
  EXPECT_EQ(stream.client().incomplete_bytes, 6u);
}

TEST(PlainZlib, RoundTripsBothFormatsAndRejectsTheOther) {
  const std::string text = "pooled-gzip interop";
  for (const char* encoding : {"gzip", "deflate"}) {
    absl::StatusOr<std::string> compressed =
        plain_zlib::Deflate(text, encoding);
    ASSERT_TRUE(compressed.ok());
    EXPECT_EQ(plain_zlib::InflateOne(*compressed, encoding).value_or(""), text);
    EXPECT_FALSE(
        plain_zlib::InflateOne(
            *compressed, std::string(encoding) == "gzip" ? "deflate" : "gzip")
            .ok());
    EXPECT_FALSE(plain_zlib::InflateOne(*compressed + "x", encoding).ok());
  }
  EXPECT_FALSE(plain_zlib::InflateOne("x", "snappy").ok());
}

}  // namespace
}  // namespace pooled_gzip::interop
