// A hostile peer: a raw HTTP/2 client (no gRPC library) sends pooled-gzip
// servers a message flagged gzip-compressed whose body is corrupt, one whose
// gzip stream is cut short, and one whose gRPC frame is cut short. Each call
// must end with a non-OK status, and the server must then answer a
// well-formed call, on the same connection and on a new one.
//
// Two servers: the example echo server (pooled-gzip compresses its
// responses; gRPC core inflates requests) and the suite's TestService in
// raw mode (pooled-gzip's pooled reader inflates requests).

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "child_process.h"
#include "echo.pb.h"
#include "grpc/testing/messages.pb.h"
#include "http2_frame.h"
#include "peers.h"
#include "plain_zlib.h"
#include "raw_http2_client.h"
#include "relayed_server.h"

namespace pooled_gzip::interop {
namespace {

constexpr absl::Duration kCallTimeout = absl::Seconds(30);

struct Target {
  std::string name;
  Command server;
  std::string path;
  std::string request;  // a serialized, well-formed request
  // Whether `response` (inflated message bytes) answers `request`.
  std::function<bool(const std::string& response)> answers;
};

void PrintTo(const Target& target, std::ostream* out) { *out << target.name; }

Target EchoTarget() {
  echo::EchoRequest request;
  // Long enough that its compressed reply is smaller, so gRPC's rule
  // (never send a compressed message larger than the plain one) flags it.
  std::string payload;
  for (int i = 0; i < 20; ++i)
    payload += "a well-formed request, hostile peer ";
  request.set_payload(payload);
  request.set_response_encoding("gzip");
  return {
      "pooled_echo_server", PooledEchoServer(/*default_compression=*/"gzip"),
      "/pooled_gzip.echo.Echo/Unary", request.SerializeAsString(),
      [payload](const std::string& bytes) {
        echo::EchoResponse response;
        return response.ParseFromString(bytes) && response.payload() == payload;
      }};
}

Target RawModeTarget() {
  grpc::testing::SimpleRequest request;
  request.set_response_size(64);
  request.mutable_payload()->set_body(std::string(100, 'x'));
  request.mutable_response_compressed()->set_value(true);
  return {"raw_mode_test_service", InteropTestServer(),
          "/grpc.testing.TestService/UnaryCall", request.SerializeAsString(),
          [](const std::string& bytes) {
            grpc::testing::SimpleResponse response;
            return response.ParseFromString(bytes) &&
                   response.payload().body().size() == 64;
          }};
}

class HostilePeerTest : public testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<support::ChildProcess>> server =
        support::ChildProcess::Start(GetParam().server);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    absl::StatusOr<int> port = server_->WaitForListeningPort(kStartTimeout);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
    absl::StatusOr<std::unique_ptr<RawHttp2Client>> client =
        RawHttp2Client::Connect(port_);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  std::string CompressedRequest() {
    absl::StatusOr<std::string> compressed =
        plain_zlib::Deflate(GetParam().request, "gzip");
    EXPECT_TRUE(compressed.ok());
    return compressed.value_or("");
  }

  // Sends `data` as a gzip call and expects it to fail.
  void ExpectRejected(const std::string& data) {
    absl::StatusOr<uint32_t> id = client_->Call(GetParam().path, "gzip", data);
    ASSERT_TRUE(id.ok()) << id.status();
    absl::StatusOr<StreamRecord> stream = client_->Await(*id, kCallTimeout);
    ASSERT_TRUE(stream.ok()) << stream.status();
    std::cout << "  hostile call: grpc-status "
              << stream->server().Header("grpc-status").value_or("none") << " '"
              << stream->server().Header("grpc-message").value_or("") << "'"
              << (stream->rst_stream_code
                      ? absl::StrCat(", RST_STREAM ", *stream->rst_stream_code)
                      : "")
              << "\n";
    EXPECT_TRUE(
        stream->rst_stream_code.has_value() ||
        (stream->grpc_status().has_value() && *stream->grpc_status() != 0))
        << "a corrupt request got an OK answer";
    EXPECT_TRUE(stream->server().messages.empty())
        << "a corrupt request got a response message";
  }

  // A well-formed gzip call on `client` succeeds and is answered.
  void ExpectServed(RawHttp2Client* client) {
    absl::StatusOr<uint32_t> id = client->Call(
        GetParam().path, "gzip", GrpcFrame(true, CompressedRequest()));
    ASSERT_TRUE(id.ok()) << id.status();
    absl::StatusOr<StreamRecord> stream = client->Await(*id, kCallTimeout);
    ASSERT_TRUE(stream.ok()) << stream.status();
    EXPECT_EQ(stream->grpc_status(), 0)
        << stream->server().Header("grpc-message").value_or("");
    ASSERT_EQ(stream->server().messages.size(), 1u);
    const WireMessage& response = stream->server().messages[0];
    ASSERT_TRUE(response.ok()) << response.error;
    EXPECT_TRUE(response.compressed_flag) << "pooled-gzip compresses replies";
    EXPECT_TRUE(GetParam().answers(response.bytes));
  }

  void ExpectStillServing() {
    ExpectServed(client_.get());
    absl::StatusOr<std::unique_ptr<RawHttp2Client>> fresh =
        RawHttp2Client::Connect(port_);
    ASSERT_TRUE(fresh.ok()) << fresh.status();
    ExpectServed(fresh->get());
  }

  std::unique_ptr<support::ChildProcess> server_;
  int port_ = 0;
  std::unique_ptr<RawHttp2Client> client_;
};

TEST_P(HostilePeerTest, CorruptGzipBodyFailsAndServerGoesOn) {
  std::string corrupt = CompressedRequest();
  // Keep the 10-byte gzip header, scramble the deflate data and trailer.
  for (size_t i = 10; i < corrupt.size(); ++i) corrupt[i] ^= 0x5a;
  ASSERT_FALSE(plain_zlib::InflateOne(corrupt, "gzip").ok())
      << "not corrupt enough";
  ExpectRejected(GrpcFrame(true, corrupt));
  ExpectStillServing();
}

TEST_P(HostilePeerTest, TruncatedGzipBodyFailsAndServerGoesOn) {
  const std::string compressed = CompressedRequest();
  const std::string truncated = compressed.substr(0, compressed.size() / 2);
  ASSERT_FALSE(plain_zlib::InflateOne(truncated, "gzip").ok());
  ExpectRejected(GrpcFrame(true, truncated));
  ExpectStillServing();
}

TEST_P(HostilePeerTest, TruncatedMessageFrameFailsAndServerGoesOn) {
  // The length prefix promises the whole compressed message, but the stream
  // ends halfway through it.
  const std::string frame = GrpcFrame(true, CompressedRequest());
  ExpectRejected(frame.substr(0, frame.size() / 2));
  ExpectStillServing();
}

INSTANTIATE_TEST_SUITE_P(Servers, HostilePeerTest,
                         testing::Values(EchoTarget(), RawModeTarget()),
                         [](const testing::TestParamInfo<Target>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace pooled_gzip::interop
