// {pooled, stock} client x {pooled, stock} server x the four RPC kinds x
// {gzip, deflate, none} x payload sizes, over loopback with real servers:
// every payload must come back intact.

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "echo_client_lib.h"
#include "echo_service.h"

namespace pooled_gzip::echo {
namespace {

using MatrixParam =
    std::tuple<Mode, Mode, Rpc, grpc_compression_algorithm, size_t>;

class MatrixTest : public testing::TestWithParam<MatrixParam> {
 protected:
  static void SetUpTestSuite() {
    for (Mode mode : {Mode::kPooled, Mode::kStock}) {
      ServerOptions options;
      options.pooled = mode == Mode::kPooled;
      servers_[static_cast<int>(mode)] =
          new RunningServer(StartEchoServer(options));
    }
  }
  static void TearDownTestSuite() {
    for (RunningServer*& server : servers_) {
      server->server->Shutdown();
      delete server;
      server = nullptr;
    }
  }
  static std::string Target(Mode server_mode) {
    return absl::StrCat("127.0.0.1:",
                        servers_[static_cast<int>(server_mode)]->port);
  }

 private:
  static RunningServer* servers_[2];
};

RunningServer* MatrixTest::servers_[2];

TEST_P(MatrixTest, EchoesEveryPayloadIntact) {
  const auto [client_mode, server_mode, rpc, algorithm, size] = GetParam();
  auto stub =
      Echo::NewStub(MakeChannel(Target(server_mode), client_mode, algorithm));
  LoadOptions options;
  options.rpc = rpc;
  options.size = size;
  options.count = size >= (1 << 20) ? 2 : 5;
  options.response_algorithm = algorithm;

  LoadResult result = RunLoad(stub.get(), options);

  ASSERT_TRUE(result.status.ok()) << result.status.error_message();
  EXPECT_EQ(result.messages, options.count);
  EXPECT_EQ(result.mismatches, 0);
}

std::string ParamName(const testing::TestParamInfo<MatrixParam>& info) {
  const auto [client_mode, server_mode, rpc, algorithm, size] = info.param;
  const char* algorithm_name = nullptr;
  grpc_compression_algorithm_name(algorithm, &algorithm_name);
  return absl::StrCat(
      client_mode == Mode::kPooled ? "Pooled" : "Stock", "Client_",
      server_mode == Mode::kPooled ? "Pooled" : "Stock", "Server_",
      RpcName(rpc), "_", algorithm_name, "_", size, "B");
}

INSTANTIATE_TEST_SUITE_P(
    AllCombinations, MatrixTest,
    testing::Combine(testing::Values(Mode::kPooled, Mode::kStock),
                     testing::Values(Mode::kPooled, Mode::kStock),
                     testing::Values(Rpc::kUnary, Rpc::kClientStream,
                                     Rpc::kServerStream, Rpc::kBidi),
                     testing::Values(GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE,
                                     GRPC_COMPRESS_NONE),
                     testing::Values(size_t{0}, size_t{1}, size_t{1024},
                                     size_t{64 * 1024}, size_t{3 << 20})),
    ParamName);

}  // namespace
}  // namespace pooled_gzip::echo
