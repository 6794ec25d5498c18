// The core codec serves every call of the process, also those of servers
// other code set up without pooled_gzip: those keep the receive limits they
// set, and an explicit max_decompressed_bytes sets the cap exactly, with
// SIZE_MAX meaning no cap.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <string>

#include "cap_probes.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"

namespace pooled_gzip::reliability {
namespace {

constexpr int k64MiB = 64 << 20;

class ProcessWideCodecTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InstallCoreCodec()) << "this case is of the core codec";
  }
};

// Configure() for the time of one test, then back to what was in force.
class ExplicitCapTest : public ProcessWideCodecTest {
 protected:
  void SetUp() override {
    ProcessWideCodecTest::SetUp();
    saved_ = GetOptions();
  }
  void TearDown() override { EXPECT_TRUE(Configure(saved_).ok()); }

  void SetCap(size_t cap) {
    Options options = GetOptions();
    options.max_decompressed_bytes = cap;
    ASSERT_TRUE(Configure(options).ok());
  }

 private:
  Options saved_;
};

TEST_F(ProcessWideCodecTest, PlainServerKeepsItsLargerLimit) {
  echo::ServerOptions options;
  options.pooled = false;  // a plain grpc::ServerBuilder, no EnableOnServer
  options.max_receive_message_bytes = k64MiB;
  echo::RunningServer server = echo::StartEchoServer(options);
  ASSERT_NE(server.server, nullptr);
  const grpc::Status status =
      GzipEcho(PlainChannel(server.port, k64MiB), 10 * kMiB);
  EXPECT_TRUE(status.ok()) << status.error_code() << " "
                           << status.error_message();
  server.server->Shutdown();
}

TEST_F(ExplicitCapTest, ExplicitCapRefusesBelowTheServerLimit) {
  echo::RunningServer server = echo::StartEchoServer({});  // 4 MiB limit
  ASSERT_NE(server.server, nullptr);
  SetCap(kMiB);
  const uint64_t refused = test_support::RefusedMessages();
  const grpc::Status status = GzipEcho(PlainChannel(server.port), 2 * kMiB);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL)
      << status.error_message();
  EXPECT_EQ(test_support::RefusedMessages(), refused + 1);
  server.server->Shutdown();
}

TEST_F(ExplicitCapTest, SizeMaxMeansNoCap) {
  echo::ServerOptions options;
  options.max_receive_message_bytes = k64MiB;
  echo::RunningServer server = echo::StartEchoServer(options);
  ASSERT_NE(server.server, nullptr);
  SetCap(std::numeric_limits<size_t>::max());
  const uint64_t refused = test_support::RefusedMessages();
  const grpc::Status status =
      GzipEcho(PlainChannel(server.port, k64MiB), 20 * kMiB);
  EXPECT_TRUE(status.ok()) << status.error_code() << " "
                           << status.error_message();
  EXPECT_EQ(test_support::RefusedMessages(), refused);
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
