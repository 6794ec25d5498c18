// The core codec's decompression cap on the typed echo server, as a user
// runs it: a gzip bomb is refused before it is inflated, the server keeps
// serving, and no message the server's own limit allows is refused.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>

#include "echo_client_lib.h"
#include "echo_service.h"
#include "hostile_inputs.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"
#include "raw_echo.h"

namespace pooled_gzip::reliability {
namespace {

std::string Target(const echo::RunningServer& server) {
  return "127.0.0.1:" + std::to_string(server.port);
}

// A plain gRPC channel: it notes no receive limit of its own, so the cap is
// the server's alone.
grpc::Status Echo(const std::string& target, size_t size,
                  const grpc::ChannelArguments& args = {}) {
  grpc::ChannelArguments gzip_args = args;
  gzip_args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  auto stub = echo::Echo::NewStub(grpc::CreateCustomChannel(
      target, grpc::InsecureChannelCredentials(), gzip_args));
  grpc::ClientContext context;
  echo::EchoRequest request;
  request.set_payload(echo::MakePayload(size, 5));
  echo::EchoResponse response;
  grpc::Status status = stub->Unary(&context, request, &response);
  if (status.ok() && response.payload() != request.payload()) {
    return grpc::Status(grpc::StatusCode::DATA_LOSS, "echo differs");
  }
  return status;
}

class CoreCodecLimitsTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!InstallCoreCodec()) GTEST_SKIP() << "the core codec is not active";
  }
};

TEST_F(CoreCodecLimitsTest, GzipBombIsRefusedAndTheServerKeepsServing) {
  echo::ServerOptions options;  // gRPC's default 4 MiB receive limit
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  echo::RunningServer server = echo::StartEchoServer(options);
  ASSERT_NE(server.server, nullptr);
  const std::string bomb = ZeroBomb(kGiB, Format::kGzip);
  auto channel =
      grpc::CreateChannel(Target(server), grpc::InsecureChannelCredentials());
  ASSERT_TRUE(Echo(Target(server), 100).ok());  // connected and warm

  const uint64_t refusals = GetPoolStats().size_limit_refusals;
  ASSERT_TRUE(ResetPeakRss());  // the peak below means nothing otherwise
  const FlaggedCall call = SendFlaggedGzip(channel, bomb);
  const grpc::Status& status = call.status;
  std::cout << "  1 GiB bomb (" << bomb.size() << " B on the wire): status "
            << status.error_code() << ", peak RSS +"
            << call.PeakGrowth() / double(kMiB) << " MiB\n";
  // gRPC reports every failed decompression as INTERNAL.
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL)
      << status.error_message();
  EXPECT_EQ(GetPoolStats().size_limit_refusals, refusals + 1);
  if (!kSanitized) {
    EXPECT_LT(call.PeakGrowth(), 32 * kMiB)
        << "peak RSS grew from " << call.rss_before / kMiB << " MiB to "
        << call.peak_rss / kMiB << " MiB";
  }
  EXPECT_TRUE(Echo(Target(server), 1000).ok());
  // Under the default 4 MiB limit, a 3 MiB message still passes.
  const grpc::Status three_mib = Echo(Target(server), 3 * kMiB);
  EXPECT_TRUE(three_mib.ok()) << three_mib.error_message();
  server.server->Shutdown();
}

TEST_F(CoreCodecLimitsTest, LargerServerLimitRaisesTheCap) {
  echo::ServerOptions options;
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  options.max_receive_message_bytes = 64 << 20;
  echo::RunningServer server = echo::StartEchoServer(options);
  ASSERT_NE(server.server, nullptr);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  const grpc::Status status = Echo(Target(server), 40 * kMiB, args);
  EXPECT_TRUE(status.ok()) << status.error_message();
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
