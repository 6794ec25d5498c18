// The core codec's default cap in a process with channels that ask for more
// than the servers do: twice the largest finite receive limit noted, so an
// unlimited channel or one set up with pooled_gzip.enabled=0 leaves a
// 4 MiB server's bomb protection (8 MiB) in place. Each case needs the
// process's cap as it starts, so that no other case raised it: keep cases
// here that raise it out of this file.

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

namespace pooled_gzip::reliability {
namespace {

using internal::Format;

std::string Target(const echo::RunningServer& server) {
  return "127.0.0.1:" + std::to_string(server.port);
}

// A typed echo server set up with EnableOnServer, at gRPC's default 4 MiB
// receive limit.
echo::RunningServer StartDefaultLimitServer() {
  echo::ServerOptions options;
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  return echo::StartEchoServer(options);
}

class DefaultCapTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InstallCoreCodec()) << "this case is of the core codec";
  }
};

TEST_F(DefaultCapTest, UnlimitedChannelDoesNotRemoveBombProtection) {
  echo::RunningServer server = StartDefaultLimitServer();
  ASSERT_NE(server.server, nullptr);
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  args.SetMaxReceiveMessageSize(-1);
  const std::shared_ptr<grpc::Channel> unlimited =
      CreateChannel(Target(server), grpc::InsecureChannelCredentials(), args);
  ASSERT_TRUE(GzipEcho(unlimited, 100).ok());  // connected and warm
  const std::string bomb = ZeroBomb(kGiB, Format::kGzip);

  const uint64_t refused = test_support::RefusedMessages();
  ASSERT_TRUE(ResetPeakRss());  // the peak below means nothing otherwise
  const FlaggedCall call = SendFlaggedGzip(unlimited, bomb);
  std::cout << "  1 GiB bomb (" << bomb.size() << " B on the wire): status "
            << call.status.error_code() << " \"" << call.status.error_message()
            << "\", peak RSS +" << call.PeakGrowth() / double(kMiB) << " MiB\n";
  // A refusal by the codec is a failed decompression, which a server's
  // client sees as the stream reset with INTERNAL_ERROR.
  EXPECT_EQ(call.status.error_code(), grpc::StatusCode::INTERNAL)
      << call.status.error_message();
  EXPECT_EQ(test_support::RefusedMessages(), refused + 1);
  if (!kSanitized) {
    EXPECT_LT(call.PeakGrowth(), 32 * kMiB)
        << "peak RSS grew from " << call.rss_before / kMiB << " MiB to "
        << call.peak_rss / kMiB << " MiB";
  }
  const grpc::Status after = GzipEcho(unlimited, 1000);
  EXPECT_TRUE(after.ok()) << after.error_message();
  server.server->Shutdown();
}

TEST_F(DefaultCapTest, DisabledChannelDoesNotRaiseTheCap) {
  echo::RunningServer server = StartDefaultLimitServer();
  ASSERT_NE(server.server, nullptr);
  grpc::ChannelArguments args;
  args.SetInt(kArgEnabled, 0);
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  args.SetMaxReceiveMessageSize(64 << 20);
  const std::shared_ptr<grpc::Channel> disabled =
      CreateChannel(Target(server), grpc::InsecureChannelCredentials(), args);
  ASSERT_TRUE(GzipEcho(disabled, 100).ok());

  // 20 MiB lies past the cap the server's 4 MiB gives (8 MiB) and within
  // the one the channel's 64 MiB would give (128 MiB): counted as refused
  // only if the disabled channel was left out. About 20 KiB on the wire,
  // far below the limit core checks the compressed length against.
  const uint64_t refused = test_support::RefusedMessages();
  const FlaggedCall call =
      SendFlaggedGzip(disabled, ZeroBomb(20 * kMiB, Format::kGzip));
  std::cout << "  20 MiB of zeros: status " << call.status.error_code() << " \""
            << call.status.error_message() << "\"\n";
  EXPECT_EQ(call.status.error_code(), grpc::StatusCode::INTERNAL)
      << call.status.error_message();
  EXPECT_EQ(test_support::RefusedMessages(), refused + 1);
  const grpc::Status after = GzipEcho(disabled, 1000);
  EXPECT_TRUE(after.ok()) << after.error_message();
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
