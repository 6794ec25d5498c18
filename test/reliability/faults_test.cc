// Faults in the middle of compressed calls, against a real pooled server on
// loopback: client cancellation, deadline expiry and clients killed outright
// while the server compresses for them. After each, the server must still
// serve, and once it has shut down no pooled context may be left checked out
// (created - destroyed == pooled); LeakSanitizer checks the rest of the heap
// in the sanitizer build.

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "echo_client_lib.h"
#include "echo_service.h"
#include "pool_at_rest.h"
#include "pooled_gzip/pooled_gzip.h"

extern char** environ;

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
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::milliseconds(1500));
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
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  const std::string streams_arg = std::to_string(streams);
  char* const argv[] = {const_cast<char*>(POOLED_GZIP_ABRUPT_CLIENT),
                        const_cast<char*>(target.c_str()),
                        const_cast<char*>(streams_arg.c_str()), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  // The readiness handshake: the child prints "ready" with every call open.
  std::string line;
  char c = 0;
  while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
  close(out[0]);
  EXPECT_EQ(line, "ready");
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int wait_status = 0;
  ASSERT_EQ(waitpid(pid, &wait_status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL)
      << "the client exited by itself, status " << wait_status;
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

}  // namespace
}  // namespace pooled_gzip::reliability
