// The first install in a process that is already busy: servers whose
// builders were made before it, on this thread or another, and stock gzip
// and deflate traffic flowing both ways. The core codec is installed once
// per process, so every case needs a process in which nothing installed it
// yet: CTest runs each case in a process of its own.

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "echo_client_lib.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"
#include "traffic_totals.h"

namespace pooled_gzip::echo {
namespace {

// A request past the 8 MiB cap that gRPC's default limit alone would give
// (twice 4 MiB), within the 64 MiB the server allows.
constexpr int kServerLimit = 64 << 20;
constexpr size_t kRequestBytes = 20 << 20;

// Builds `builder`, made by the caller (not through EnableOnServer), into
// a stock echo server that allows kServerLimit.
struct Server {
  EchoServiceImpl service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::string target() const { return "127.0.0.1:" + std::to_string(port); }
};
void Build(grpc::ServerBuilder& builder, Server* server) {
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &server->port);
  builder.RegisterService(&server->service);
  builder.SetMaxReceiveMessageSize(kServerLimit);
  builder.SetMaxSendMessageSize(kServerLimit);
  server->server = builder.BuildAndStart();
}

// A 20 MiB gzip request to `server`, echoed back uncompressed.
grpc::Status LargeGzipEcho(const Server& server) {
  auto stub = Echo::NewStub(
      MakeChannel(server.target(), Mode::kStock, GRPC_COMPRESS_GZIP));
  EchoRequest request;
  request.set_payload(MakePayload(kRequestBytes, 7));
  EchoResponse response;
  grpc::ClientContext context;
  context.set_wait_for_ready(true);
  grpc::Status status = stub->Unary(&context, request, &response);
  if (status.ok() && response.payload() != request.payload()) {
    return grpc::Status(grpc::StatusCode::DATA_LOSS, "echo differs");
  }
  return status;
}

TEST(FirstInstall, AServerWhoseBuilderCameFirstKeepsItsLimit) {
  Server server;
  grpc::ServerBuilder builder;
  ASSERT_TRUE(InstallCoreCodec());
  Build(builder, &server);
  ASSERT_NE(server.server, nullptr);
  const grpc::Status status = LargeGzipEcho(server);
  EXPECT_TRUE(status.ok()) << status.error_code() << " "
                           << status.error_message();
  server.server->Shutdown();
}

TEST(FirstInstall, AServerWhoseBuilderIsMadeOnAnotherThreadMeanwhile) {
  Server server;
  std::promise<void> installed;
  std::shared_future<void> install_done = installed.get_future().share();
  std::atomic<bool> go{false};
  std::thread maker([&] {
    while (!go.load()) std::this_thread::yield();
    grpc::ServerBuilder builder;
    install_done.wait();
    Build(builder, &server);
  });
  go.store(true);
  const bool active = InstallCoreCodec();
  installed.set_value();
  maker.join();
  ASSERT_TRUE(active);
  ASSERT_NE(server.server, nullptr);
  const grpc::Status status = LargeGzipEcho(server);
  EXPECT_TRUE(status.ok()) << status.error_code() << " "
                           << status.error_message();
  server.server->Shutdown();
}

// Stock calls of one kind in a loop until told to stop, pausing between
// rounds when told to; counts what it sent and what failed.
class Pump {
 public:
  Pump(const std::string& target, Rpc rpc, grpc_compression_algorithm algorithm)
      : stub_(Echo::NewStub(MakeChannel(target, Mode::kStock, algorithm))) {
    options_.rpc = rpc;
    options_.size = 4096;
    options_.count = rpc == Rpc::kUnary ? 2 : 5;
    options_.response_algorithm = algorithm;
  }

  void Start() {
    thread_ = std::thread([this] { Run(); });
  }
  void Stop() {
    stop_.store(true);
    thread_.join();
  }
  // Lets the current round end; returns once the pump waits.
  void Pause() {
    paused_.store(true);
    while (!waiting_.load()) std::this_thread::yield();
  }
  void Resume() { paused_.store(false); }
  int rounds() const { return rounds_.load(); }
  // Messages echoed (one request and one response each) since Resume().
  int echoed_since_resume() const { return echoed_since_resume_.load(); }
  int failures() const { return failures_.load(); }

 private:
  void Run() {
    while (!stop_.load()) {
      if (paused_.load()) {
        waiting_.store(true);
        while (paused_.load() && !stop_.load()) std::this_thread::yield();
        waiting_.store(false);
        echoed_since_resume_.store(0);
        continue;
      }
      const LoadResult result = RunLoad(stub_.get(), options_);
      if (!result.status.ok() || result.mismatches > 0 ||
          result.messages != options_.count) {
        ADD_FAILURE() << RpcName(options_.rpc) << ": "
                      << result.status.error_message() << ", "
                      << result.mismatches << " mismatches";
        failures_.fetch_add(1);
      }
      echoed_since_resume_.fetch_add(result.messages);
      rounds_.fetch_add(1);
    }
  }

  std::unique_ptr<Echo::Stub> stub_;
  LoadOptions options_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> paused_{false};
  std::atomic<bool> waiting_{false};
  std::atomic<int> rounds_{0};
  std::atomic<int> echoed_since_resume_{0};
  std::atomic<int> failures_{0};
};

TEST(FirstInstall, UnderStockTrafficBothWaysFailsNoCallAndServesWhatFollows) {
  Server server;
  grpc::ServerBuilder builder;
  Build(builder, &server);
  ASSERT_NE(server.server, nullptr);
  std::vector<std::unique_ptr<Pump>> pumps;
  for (Rpc rpc : {Rpc::kUnary, Rpc::kBidi}) {
    for (grpc_compression_algorithm algorithm :
         {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE}) {
      pumps.push_back(std::make_unique<Pump>(server.target(), rpc, algorithm));
    }
  }
  for (auto& pump : pumps) pump->Start();
  // Every pump has echoed, and echoes on, while the install runs.
  for (auto& pump : pumps) {
    while (pump->rounds() == 0) std::this_thread::yield();
  }
  EXPECT_TRUE(InstallCoreCodec());

  // From a quiet moment on, every message both ways is served.
  for (auto& pump : pumps) pump->Pause();
  const uint64_t compressed_before = test_support::Totals(true).messages;
  const uint64_t inflated_before = test_support::Totals(false).messages;
  for (auto& pump : pumps) pump->Resume();
  for (auto& pump : pumps) {
    const int rounds = pump->rounds();
    while (pump->rounds() < rounds + 3) std::this_thread::yield();
  }
  for (auto& pump : pumps) pump->Pause();
  uint64_t echoed = 0;
  for (auto& pump : pumps) echoed += pump->echoed_since_resume();
  const uint64_t compressed =
      test_support::Totals(true).messages - compressed_before;
  const uint64_t inflated =
      test_support::Totals(false).messages - inflated_before;
  for (auto& pump : pumps) pump->Stop();

  EXPECT_TRUE(CoreCodecActive());
  for (auto& pump : pumps) EXPECT_EQ(pump->failures(), 0);
  // Each echo is a request and a response, each compressed and inflated.
  EXPECT_EQ(compressed, 2 * echoed);
  EXPECT_EQ(inflated, 2 * echoed);
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::echo
