// Messages over a receive limit end their calls as stock gRPC ends them:
// within the core codec's cap a message is inflated in full, so core's own
// size check answers RESOURCE_EXHAUSTED "Received message larger than max
// (X vs. Y)" (from 1.83 on prefixed "SERVER: " or "CLIENT: "), which users'
// retry and alert rules expect. The stock side
// runs in processes of its own (the example echo server in --mode=stock, and
// status_client, which does not link pooled_gzip): once the core codec is
// installed it serves every call of its process.

#include <grpcpp/grpcpp.h>
#include <grpcpp/version_info.h>
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cap_probes.h"
#include "child_process.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"

namespace pooled_gzip::reliability {
namespace {

using support::ChildProcess;

constexpr absl::Duration kChildTimeout = absl::Seconds(60);
// What gRPC says, as the gRPC this test is built against says it: its size
// check, and a failed decompression at the server (seen by its client) and
// at a client.
constexpr grpc::StatusCode kUndecodedAtServerCode = grpc::StatusCode::INTERNAL;
#if GRPC_CPP_VERSION_MAJOR == 1 && GRPC_CPP_VERSION_MINOR < 83
constexpr char kTooLargeAtServer[] = "Received message larger than max (";
constexpr char kTooLargeAtClient[] = "Received message larger than max (";
constexpr char kUndecodedAtServer[] = "Received RST_STREAM with error code 2";
constexpr grpc::StatusCode kUndecodedAtClientCode = grpc::StatusCode::UNKNOWN;
constexpr char kUndecodedAtClient[] =
    "Unexpected error decompressing data for algorithm with enum value 2";
#else
constexpr char kTooLargeAtServer[] =
    "SERVER: Received message larger than max (";
constexpr char kTooLargeAtClient[] =
    "CLIENT: Received message larger than max (";
constexpr char kUndecodedAtServer[] =
    "Unexpected error decompressing data for algorithm gzip";
constexpr grpc::StatusCode kUndecodedAtClientCode = grpc::StatusCode::INTERNAL;
constexpr char kUndecodedAtClient[] =
    "Unexpected error decompressing data for algorithm gzip";
#endif

struct CallStatus {
  int code = -1;
  std::string message;
};

std::ostream& operator<<(std::ostream& out, const CallStatus& status) {
  return out << status.code << " \"" << status.message << "\"";
}

CallStatus StatusOf(const grpc::Status& status) {
  return {static_cast<int>(status.error_code()), status.error_message()};
}

// A stock echo server in a child process, with `flags` added.
struct StockServer {
  std::unique_ptr<ChildProcess> process;
  int port = 0;
};

absl::StatusOr<StockServer> StartStockServer(
    const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {POOLED_GZIP_ECHO_SERVER, "--mode=stock",
                                   "--port=0"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> process =
      ChildProcess::Start(argv);
  if (!process.ok()) return process.status();
  absl::StatusOr<int> port = (*process)->WaitForListeningPort(kChildTimeout);
  if (!port.ok()) return port.status();
  return StockServer{std::move(*process), *port};
}

// What status_client's stock call of `size` bytes to `port` ended with.
absl::StatusOr<CallStatus> StockClientCall(int port, size_t size) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> client = ChildProcess::Start(
      {POOLED_GZIP_STATUS_CLIENT, absl::StrCat("--target=127.0.0.1:", port),
       absl::StrCat("--size=", size)});
  if (!client.ok()) return client.status();
  absl::StatusOr<int> exit_code = (*client)->WaitForExit(kChildTimeout);
  if (!exit_code.ok()) return exit_code.status();
  const std::string& output = (*client)->output();
  // gRPC may log on the same pipe; the status is the line of its own.
  const size_t at = output.find("status: ");
  const size_t end = output.find('\n', at);
  if (*exit_code != 0 || at == std::string::npos || end == std::string::npos) {
    return absl::InternalError("status_client: " + output);
  }
  const std::string line = output.substr(at + 8, end - at - 8);
  const size_t space = line.find(' ');
  CallStatus status;
  if (space == std::string::npos ||
      !absl::SimpleAtoi(line.substr(0, space), &status.code)) {
    return absl::InternalError("unreadable: " + line);
  }
  status.message = line.substr(space + 1);
  return status;
}

class StockStatusesTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InstallCoreCodec()) << "these cases are of the core codec";
  }
};

// The client is stock on both sides; only the server differs.
TEST_F(StockStatusesTest, RequestsOverTheServerLimit) {
  absl::StatusOr<StockServer> stock = StartStockServer({});
  ASSERT_TRUE(stock.ok()) << stock.status();
  echo::RunningServer pooled = echo::StartEchoServer({});  // EnableOnServer
  ASSERT_NE(pooled.server, nullptr);
  for (const size_t size : {5 * kMiB, 7 * kMiB}) {
    SCOPED_TRACE(absl::StrCat(size / kMiB, " MiB"));
    const absl::StatusOr<CallStatus> from_stock =
        StockClientCall(stock->port, size);
    const absl::StatusOr<CallStatus> from_pooled =
        StockClientCall(pooled.port, size);
    ASSERT_TRUE(from_stock.ok()) << from_stock.status();
    ASSERT_TRUE(from_pooled.ok()) << from_pooled.status();
    std::cout << "  " << size / kMiB << " MiB request: stock server "
              << *from_stock << ", pooled server " << *from_pooled << "\n";
    EXPECT_EQ(from_stock->code,
              static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED));
    EXPECT_EQ(from_stock->message.rfind(kTooLargeAtServer, 0), 0u)
        << from_stock->message;
    EXPECT_EQ(from_pooled->code, from_stock->code) << from_pooled->message;
    EXPECT_EQ(from_pooled->message, from_stock->message);
  }
  pooled.server->Shutdown();
}

// The server is stock on both sides (a 16 MiB limit and gzip responses);
// only the client differs.
TEST_F(StockStatusesTest, ResponseOverTheClientLimit) {
  absl::StatusOr<StockServer> server =
      StartStockServer({"--max_receive_mib=16", "--compression=gzip"});
  ASSERT_TRUE(server.ok()) << server.status();
  const absl::StatusOr<CallStatus> stock =
      StockClientCall(server->port, 5 * kMiB);
  ASSERT_TRUE(stock.ok()) << stock.status();
  grpc::ChannelArguments args;  // gRPC's default 4 MiB receive limit
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  const CallStatus pooled =
      StatusOf(GzipEcho(CreateChannel(absl::StrCat("127.0.0.1:", server->port),
                                      grpc::InsecureChannelCredentials(), args),
                        5 * kMiB));
  std::cout << "  5 MiB response: stock client " << *stock << ", pooled client "
            << pooled << "\n";
  EXPECT_EQ(stock->code,
            static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED));
  EXPECT_EQ(stock->message.rfind(kTooLargeAtClient, 0), 0u) << stock->message;
  EXPECT_EQ(pooled.code, stock->code) << pooled.message;
  EXPECT_EQ(pooled.message, stock->message);
}

// Past the cap (twice gRPC's default limit here, 8 MiB), the codec refuses
// the message while inflating it, and gRPC fails the call as it fails any
// decompression: the table of docs/reference.md, "Limits", quotes these.
TEST_F(StockStatusesTest, BeyondTheCapTheCallFailsAsADecompressionError) {
  constexpr size_t kBeyond = 9 * kMiB;  // about 3 MiB compressed
  echo::RunningServer pooled = echo::StartEchoServer({});
  ASSERT_NE(pooled.server, nullptr);
  const uint64_t refused = test_support::RefusedMessages();
  const absl::StatusOr<CallStatus> to_server =
      StockClientCall(pooled.port, kBeyond);
  ASSERT_TRUE(to_server.ok()) << to_server.status();
  std::cout << "  9 MiB request, pooled server: " << *to_server << "\n";
  EXPECT_EQ(to_server->code, static_cast<int>(kUndecodedAtServerCode));
  EXPECT_EQ(to_server->message, kUndecodedAtServer);
  pooled.server->Shutdown();

  absl::StatusOr<StockServer> server =
      StartStockServer({"--max_receive_mib=16", "--compression=gzip"});
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  const CallStatus to_client =
      StatusOf(GzipEcho(CreateChannel(absl::StrCat("127.0.0.1:", server->port),
                                      grpc::InsecureChannelCredentials(), args),
                        kBeyond));
  std::cout << "  9 MiB response, pooled client: " << to_client << "\n";
  EXPECT_EQ(to_client.code, static_cast<int>(kUndecodedAtClientCode));
  EXPECT_EQ(to_client.message, kUndecodedAtClient);
  EXPECT_EQ(test_support::RefusedMessages(), refused + 2);
}

}  // namespace
}  // namespace pooled_gzip::reliability
