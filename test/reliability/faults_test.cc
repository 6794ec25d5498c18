// Faults in the middle of compressed calls, against a real pooled server on
// loopback: client cancellation, deadline expiry and clients killed outright
// while the server compresses for them. After each, the server must still
// serve, and once it has shut down no pooled context may be left checked out
// (created - destroyed == pooled); LeakSanitizer checks the rest of the heap
// in the sanitizer build. And a fault before any call: a first connection
// attempt refused, which a call that waits for ready outlasts.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "child_process.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "pool_at_rest.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::reliability {
namespace {

using echo::Echo;
using echo::EchoRequest;
using echo::EchoResponse;

EchoRequest BigGzipRequest(uint32_t response_count = 0) {
  EchoRequest request;
  // 64 KiB takes the server long enough to compress that a fault often
  // lands while it is compressing.
  request.set_payload(echo::MakePayload(64 * 1024, 21));
  request.set_response_encoding("gzip");
  request.set_response_count(response_count);
  return request;
}

class FaultsTest : public testing::Test {
 protected:
  void SetUp() override {
    echo::ServerOptions options;
    options.default_algorithm = GRPC_COMPRESS_GZIP;
    server_ = echo::StartEchoServer(options);
    target_ = "127.0.0.1:" + std::to_string(server_.port);
    stub_ = Echo::NewStub(
        echo::MakeChannel(target_, echo::Mode::kPooled, GRPC_COMPRESS_GZIP));
  }

  // The server still answers, through every RPC kind.
  void ExpectServerServes() {
    for (echo::Rpc rpc : {echo::Rpc::kUnary, echo::Rpc::kServerStream,
                          echo::Rpc::kClientStream, echo::Rpc::kBidi}) {
      echo::LoadOptions load;
      load.rpc = rpc;
      load.count = 5;
      load.response_algorithm = GRPC_COMPRESS_GZIP;
      const echo::LoadResult result = echo::RunLoad(stub_.get(), load);
      EXPECT_TRUE(result.status.ok())
          << echo::RpcName(rpc) << ": " << result.status.error_message();
      EXPECT_EQ(result.messages, load.count) << echo::RpcName(rpc);
      EXPECT_EQ(result.mismatches, 0) << echo::RpcName(rpc);
    }
  }

  // Shutdown waits for every handler to return; then no context may stay
  // checked out.
  void ShutdownAndExpectNoContextOutstanding() {
    server_.server->Shutdown();
    server_.server->Wait();
    PoolStats stats;
    EXPECT_TRUE(PoolComesToRest(&stats)) << ToString(stats);
    EXPECT_GT(stats.created + stats.reused, 0u);
  }

  echo::RunningServer server_;
  std::string target_;
  std::unique_ptr<Echo::Stub> stub_;
};

TEST_F(FaultsTest, ClientCancelsMidStream) {
  // Two client threads, so cancellations race with the other's traffic.
  auto client = [this](int thread) {
    const EchoRequest request = BigGzipRequest();
    for (int round = 0; round < 15; ++round) {
      grpc::ClientContext context;
      auto stream = stub_->Bidi(&context);
      EchoResponse response;
      for (int i = 0; i < 1 + (round + thread) % 4; ++i) {
        ASSERT_TRUE(stream->Write(request) && stream->Read(&response));
        ASSERT_EQ(response.payload(), request.payload());
      }
      // Requests the server has not answered yet: it is reading or
      // compressing replies when the cancel arrives.
      for (int i = 0; i < round % 3; ++i) stream->Write(request);
      context.TryCancel();
      while (stream->Read(&response)) {
      }
      const grpc::Status status = stream->Finish();
      EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED)
          << "round " << round << ": " << status.error_message();
    }
  };
  std::thread other(client, 1);
  client(0);
  other.join();
  ExpectServerServes();
  ShutdownAndExpectNoContextOutstanding();
}

TEST_F(FaultsTest, DeadlineExpiresMidStream) {
  // Streams of 2^30 replies cannot finish: the deadline always ends them,
  // while the server is writing. Half the clients keep reading (the server
  // compresses flat out), half stop after the first reply (the server is
  // blocked on flow control).
  const EchoRequest request = BigGzipRequest(1u << 30);
  auto client = [&](bool keep_reading) {
    grpc::ClientContext context;
    // The first calls on the fixture's fresh channel.
    echo::WaitForReadyWithin(&context, std::chrono::milliseconds(1500));
    auto reader = stub_->ServerStream(&context, request);
    EchoResponse response;
    int received = 0;
    while ((keep_reading || received == 0) && reader->Read(&response)) {
      EXPECT_EQ(response.payload(), request.payload());
      ++received;
    }
    const grpc::Status status = reader->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << status.error_message();
  };
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; ++i) clients.emplace_back(client, i % 2 == 0);
  for (std::thread& thread : clients) thread.join();
  ExpectServerServes();
  ShutdownAndExpectNoContextOutstanding();
}

// Runs the abrupt client against `target` and kills it with SIGKILL once its
// calls are all under way.
void RunAndKillAbruptClient(const std::string& target, int streams) {
  // Its stdout only: the readiness line must not mix with gRPC's logs.
  support::ChildProcess::Options options;
  options.capture_stderr = false;
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> client =
      support::ChildProcess::Start(
          {POOLED_GZIP_ABRUPT_CLIENT, target, std::to_string(streams)},
          options);
  ASSERT_TRUE(client.ok()) << client.status();
  // The readiness handshake: the child prints "ready" with every call open.
  absl::StatusOr<std::string> line = (*client)->ReadLine(absl::Seconds(60));
  EXPECT_EQ(line.value_or(line.status().ToString()), "ready");
  ASSERT_TRUE((*client)->Signal(SIGKILL));
  absl::StatusOr<int> exit_code = (*client)->WaitForExit(absl::Seconds(60));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 128 + SIGKILL)
      << "the client exited by itself, code " << *exit_code;
}

TEST_F(FaultsTest, AbruptClientDisconnects) {
  const PoolStats before = GetPoolStats();
  for (int round = 0; round < 3; ++round) {
    RunAndKillAbruptClient(target_, 3);
    ExpectServerServes();
  }
  // The server compressed for the killed clients from the pool.
  const PoolStats after = GetPoolStats();
  EXPECT_GT(after.created + after.reused, before.created + before.reused);
  ShutdownAndExpectNoContextOutstanding();
}

// A first call given WaitForReadyWithin outlasts a refused connection
// attempt: it waits while the channel backs off, and the server comes up.
TEST(WaitForReadyWithin, FirstCallOutlastsARefusedConnection) {
  int port = 0;
  {
    // A port that was free a moment ago, closed again.
    echo::RunningServer gone = echo::StartEchoServer(echo::ServerOptions{});
    ASSERT_NE(gone.server, nullptr);
    port = gone.port;
    gone.server->Shutdown();
  }
  const std::string target = "127.0.0.1:" + std::to_string(port);
  auto channel =
      echo::MakeChannel(target, echo::Mode::kPooled, GRPC_COMPRESS_GZIP);
  // Refused, the channel is in TRANSIENT_FAILURE, where a fail-fast call
  // fails at once, until its backoff ends.
  grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_TRANSIENT_FAILURE) {
    ASSERT_TRUE(channel->WaitForStateChange(
        state, std::chrono::system_clock::now() + std::chrono::seconds(30)))
        << "state " << state;
    state = channel->GetState(/*try_to_connect=*/false);
  }
  auto stub = Echo::NewStub(channel);
  grpc::ClientContext context;
  echo::WaitForReadyWithin(&context, std::chrono::seconds(30));
  EchoRequest request;
  request.set_payload(echo::MakePayload(1024, 4));
  EchoResponse response;
  std::promise<grpc::Status> done;
  stub->async()->Unary(
      &context, &request, &response,
      [&done](grpc::Status status) { done.set_value(std::move(status)); });
  // Only with the call under way does a server listen on that port.
  echo::EchoServiceImpl service;
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(target, grpc::InsecureServerCredentials(), &bound);
  builder.RegisterService(&service);
  const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  EXPECT_EQ(bound, port) << "the port was taken meanwhile";
  const grpc::Status status = done.get_future().get();
  EXPECT_TRUE(status.ok()) << status.error_code() << " "
                           << status.error_message();
  EXPECT_EQ(response.payload(), request.payload());
  if (server != nullptr) server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
