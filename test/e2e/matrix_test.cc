// {pooled, stock} client x {pooled, stock} server x the four RPC kinds x
// {gzip, deflate, none} x payload sizes, over loopback with real servers:
// every payload must come back intact, every message the call's algorithm
// compresses must have been compressed by the codec and served by the pool,
// and nothing else.

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "core_codec_required.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"
#include "traffic_totals.h"

namespace pooled_gzip::echo {
namespace {

using MatrixParam =
    std::tuple<Mode, Mode, Rpc, grpc_compression_algorithm, size_t>;
using test_support::Totals;

[[maybe_unused]] const bool kCoreCodecRequired =
    test_support::RequireCoreCodec();

uint64_t Checkouts(const PoolCounters& pool) {
  return pool.created + pool.reused;
}

// Messages each way of one RunLoad.
struct Messages {
  uint64_t requests;
  uint64_t responses;
};

Messages MessagesOf(Rpc rpc, int count) {
  const auto n = static_cast<uint64_t>(count);
  switch (rpc) {
    case Rpc::kClientStream:
      return {n, 1};
    case Rpc::kServerStream:
      return {1, n};
    default:
      return {n, n};
  }
}

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

  const char* name = "";
  grpc_compression_algorithm_name(algorithm, &name);
  const test_support::DirectionTotals sent_before = Totals(true, name);
  const test_support::DirectionTotals received_before = Totals(false, name);
  const uint64_t given_before =
      test_support::CodecMessages(true) + test_support::CodecMessages(false);
  const PoolStats pool_before = GetPoolStats();

  LoadResult result = RunLoad(stub.get(), options);

  ASSERT_TRUE(result.status.ok()) << result.status.error_message();
  EXPECT_EQ(result.messages, options.count);
  EXPECT_EQ(result.mismatches, 0);

  // Every message of the call left once it was sent and arrived before it
  // was read: the counts are final once RunLoad returns.
  const test_support::DirectionTotals sent = Totals(true, name);
  const test_support::DirectionTotals received = Totals(false, name);
  const PoolStats pool = GetPoolStats();
  const uint64_t compressed = sent.messages - sent_before.messages;
  const uint64_t declined = sent.declined - sent_before.declined;
  const uint64_t inflated = received.messages - received_before.messages;
  const uint64_t writers =
      Checkouts(pool.writers) - Checkouts(pool_before.writers);
  const uint64_t readers =
      Checkouts(pool.readers) - Checkouts(pool_before.readers);
  // Small messages are declined, which is no failure: nothing fails here.
  EXPECT_EQ(sent.failed, sent_before.failed);
  EXPECT_EQ(received.failed, received_before.failed);
  if (algorithm == GRPC_COMPRESS_NONE) {
    // Identity calls never reach the codec or the pool.
    EXPECT_EQ(
        test_support::CodecMessages(true) + test_support::CodecMessages(false),
        given_before);
    EXPECT_EQ(writers, 0u);
    EXPECT_EQ(readers, 0u);
    return;
  }
  const Messages messages = MessagesOf(rpc, options.count);
  // Core compresses every message of the process through the core codec,
  // stock channels and servers included, and sends plain what would not
  // shrink (the requests of 0 and 1 B payloads carry only a few bytes, the
  // responses fewer); the receiver inflates the rest through it.
  const uint64_t all = messages.requests + messages.responses;
  EXPECT_EQ(compressed + declined, all);
  EXPECT_EQ(compressed, size >= 1024 ? all : 0u);
  EXPECT_EQ(inflated, compressed);
  EXPECT_EQ(readers, inflated);
  // One pooled writer per message compressed; declining may stop before
  // taking one.
  EXPECT_GE(writers, compressed);
  EXPECT_LE(writers, compressed + declined);
  if (compressed > 0 && size >= 1024) {
    EXPECT_LT(sent.bytes_out - sent_before.bytes_out,
              sent.bytes_in - sent_before.bytes_in);
  }
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
