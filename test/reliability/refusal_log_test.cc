// A message refused by the core codec's cap is logged, so an operator
// learns what was refused and which knob raises the cap; at most once a
// minute, so that a peer sending bombs cannot flood the log. This case must
// be the process's first refusal: keep other refusals out of this file.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "cap_probes.h"
#include "echo_service.h"
#include "hostile_inputs.h"
#include "log_capture.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"

namespace pooled_gzip::reliability {
namespace {

using internal::Format;

// Every line of gRPC's log while it lives. Verbosity is left as gRPC set it
// (by default ERROR and up): the line must reach an operator who changed
// nothing.
class CapturedLog {
 public:
  std::vector<std::string> LinesContaining(const std::string& text) const {
    std::vector<std::string> found;
    for (const test_support::LogLine& line : capture_.Lines()) {
      if (absl::StrContains(line.message, text)) found.push_back(line.message);
    }
    return found;
  }

 private:
  test_support::LogCapture capture_;
};

TEST(RefusalLogTest, TwoRefusalsInARowLogOnceWithTheCapAndTheKnob) {
  ASSERT_TRUE(InstallCoreCodec()) << "this case is of the core codec";
  echo::ServerOptions options;  // 4 MiB limit: the cap is 8 MiB
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  echo::RunningServer server = echo::StartEchoServer(options);
  ASSERT_NE(server.server, nullptr);
  const std::shared_ptr<grpc::Channel> channel = PlainChannel(server.port);
  ASSERT_TRUE(GzipEcho(channel, 100).ok());
  const std::string bomb = ZeroBomb(20 * kMiB, Format::kGzip);

  const uint64_t refused = test_support::RefusedMessages();
  std::vector<std::string> lines;
  {
    CapturedLog log;
    // The codec logs before it returns, so before the server resets the
    // stream and the call below ends.
    EXPECT_EQ(SendFlaggedGzip(channel, bomb).status.error_code(),
              grpc::StatusCode::INTERNAL);
    EXPECT_EQ(SendFlaggedGzip(channel, bomb).status.error_code(),
              grpc::StatusCode::INTERNAL);
    lines = log.LinesContaining("max_decompressed_bytes");
  }
  ASSERT_EQ(test_support::RefusedMessages(), refused + 2)
      << "not two refusals by the cap";
  ASSERT_EQ(lines.size(), 1u) << "lines naming max_decompressed_bytes";
  // The cap, in bytes or in MiB.
  EXPECT_TRUE(absl::StrContains(lines[0], "8388608") ||
              absl::StrContains(lines[0], "8 MiB"))
      << lines[0];
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
