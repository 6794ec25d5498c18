// A message refused by the core codec's cap is logged, so an operator
// learns what was refused and which knob raises the cap; at most once a
// minute, so that a peer sending bombs cannot flood the log. This case must
// be the process's first refusal: keep other refusals out of this file.

#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "cap_probes.h"
#include "echo_service.h"
#include "hostile_inputs.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"

namespace pooled_gzip::reliability {
namespace {

using internal::Format;

// gpr_log calls its function from whichever thread logs.
std::mutex g_mutex;
std::vector<std::string>* g_lines = nullptr;

void CaptureLine(gpr_log_func_args* args) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_lines != nullptr) g_lines->push_back(args->message);
}

// Every gpr_log line while it lives. Verbosity is left as gRPC set it (by
// default ERROR and up): the line must reach an operator who changed
// nothing.
class CapturedLog {
 public:
  CapturedLog() {
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_lines = &lines_;
    }
    gpr_set_log_function(&CaptureLine);
  }
  ~CapturedLog() {
    // gRPC 1.51 has no getter for the log function; nullptr restores its
    // default, which is what a test process had before.
    gpr_set_log_function(nullptr);
    std::lock_guard<std::mutex> lock(g_mutex);
    g_lines = nullptr;
  }
  std::vector<std::string> LinesContaining(const std::string& text) const {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::vector<std::string> found;
    for (const std::string& line : lines_) {
      if (absl::StrContains(line, text)) found.push_back(line);
    }
    return found;
  }

 private:
  std::vector<std::string> lines_;
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
