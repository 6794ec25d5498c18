// The core codec's decompression cap on the typed echo server, as a user
// runs it: a gzip bomb is refused before it is inflated, the server keeps
// serving, and no message the server's own limit allows is refused.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>

#include "cap_probes.h"
#include "echo_service.h"
#include "hostile_inputs.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"
#include "raw_echo.h"

namespace pooled_gzip::reliability {
namespace {

using internal::Format;

class CoreCodecLimitsTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InstallCoreCodec()) << "these cases are of the core codec";
  }
};

TEST_F(CoreCodecLimitsTest, GzipBombIsRefusedAndTheServerKeepsServing) {
  echo::ServerOptions options;  // gRPC's default 4 MiB receive limit
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  echo::RunningServer server = echo::StartEchoServer(options);
  ASSERT_NE(server.server, nullptr);
  const std::string bomb = ZeroBomb(kGiB, Format::kGzip);
  auto channel = PlainChannel(server.port);
  ASSERT_TRUE(GzipEcho(channel, 100).ok());  // connected and warm

  const uint64_t refusals = test_support::RefusedMessages();
  ASSERT_TRUE(ResetPeakRss());  // the peak below means nothing otherwise
  const FlaggedCall call = SendFlaggedGzip(channel, bomb);
  const grpc::Status& status = call.status;
  std::cout << "  1 GiB bomb (" << bomb.size() << " B on the wire): status "
            << status.error_code() << ", peak RSS +"
            << call.PeakGrowth() / double(kMiB) << " MiB\n";
  // gRPC reports every failed decompression as INTERNAL.
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL)
      << status.error_message();
  EXPECT_EQ(test_support::RefusedMessages(), refusals + 1);
  if (!kSanitized) {
    EXPECT_LT(call.PeakGrowth(), 32 * kMiB)
        << "peak RSS grew from " << call.rss_before / kMiB << " MiB to "
        << call.peak_rss / kMiB << " MiB";
  }
  EXPECT_TRUE(GzipEcho(channel, 1000).ok());
  // Under the default 4 MiB limit, a 3 MiB message still passes.
  const grpc::Status three_mib = GzipEcho(channel, 3 * kMiB);
  EXPECT_TRUE(three_mib.ok()) << three_mib.error_message();
  server.server->Shutdown();
}

TEST_F(CoreCodecLimitsTest, LargerServerLimitRaisesTheCap) {
  echo::ServerOptions options;
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  options.max_receive_message_bytes = 64 << 20;
  echo::RunningServer server = echo::StartEchoServer(options);
  ASSERT_NE(server.server, nullptr);
  const grpc::Status status =
      GzipEcho(PlainChannel(server.port, 64 << 20), 40 * kMiB);
  EXPECT_TRUE(status.ok()) << status.error_message();
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
