// Configure() while gzip calls run both ways: every message in flight reads
// the cap, backend and level some Configure() left, never a mix that refuses
// or corrupts a valid message. One thread toggles between settings that
// differ in the explicit cap (unset or 4 GiB, every other call), the backend
// and the level, as fast as it can, while client threads make unary calls of
// 1000-byte messages, compressed in both directions, through a pooled server
// and a pooled channel. The window such a mix opens is a few instructions
// wide, so a torn update shows as a few failed calls per run, not many.
//
// The caps are chosen so that a torn or mixed one refuses every message:
// unset derives 8 MiB from gRPC's receive limit (upper 32 bits zero), and
// 4 GiB has its lower 32 bits zero, so the upper half of one with the lower
// half of the other is a cap of 0. Between caps whose upper halves are both
// zero (8 and 64 MiB, say) no tear could show.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "echo.grpc.pb.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::reliability {
namespace {

constexpr int kClientThreads = 8;
constexpr int kCallsPerThread = 12500;  // 100,000 calls in all
constexpr size_t kPayloadBytes = 1000;
// Lower 32 bits zero; see the top of the file.
constexpr size_t kTearableCap = size_t{1} << 32;
static_assert(sizeof(size_t) == 8, "a 4 GiB cap needs a 64-bit size_t");

// Every backend at levels it has, each with and without an explicit cap,
// the cap set and cleared on every other call.
std::vector<Options> Toggled() {
  const struct {
    Backend backend;
    int level;
  } codecs[] = {
      {Backend::kZlib, 6}, {Backend::kLibdeflate, 6}, {Backend::kIsal, 1},
      {Backend::kZlib, 1}, {Backend::kLibdeflate, 9}, {Backend::kIsal, 3},
      {Backend::kZlib, 9}, {Backend::kLibdeflate, 1}, {Backend::kIsal, 0}};
  std::vector<Options> all;
  for (const auto& codec : codecs) {
    for (const std::optional<size_t> cap :
         {std::optional<size_t>(), std::optional<size_t>(kTearableCap)}) {
      Options options;
      options.backend = codec.backend;
      options.level = codec.level;
      options.max_decompressed_bytes = cap;
      all.push_back(options);
    }
  }
  return all;
}

struct Failures {
  std::atomic<uint64_t> count{0};
  std::mutex mutex;
  std::string first;  // guarded by mutex

  void Add(const std::string& what) {
    if (count.fetch_add(1) == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      first = what;
    }
  }
};

TEST(ConfigureRaceTest, NoCallFailsWhileConfigureChangesCapBackendAndLevel) {
  ASSERT_TRUE(InstallCoreCodec()) << "this case is of the core codec";
  const Options saved = GetOptions();
  echo::ServerOptions server_options;
  server_options.default_algorithm = GRPC_COMPRESS_GZIP;  // responses too
  echo::RunningServer server = echo::StartEchoServer(server_options);
  ASSERT_NE(server.server, nullptr);
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  const std::shared_ptr<grpc::Channel> channel =
      CreateChannel("127.0.0.1:" + std::to_string(server.port),
                    grpc::InsecureChannelCredentials(), args);

  const std::vector<Options> toggled = Toggled();
  std::atomic<bool> clients_done{false};
  std::atomic<uint64_t> toggles{0};
  std::atomic<uint64_t> rejected_configures{0};
  std::thread toggler([&] {
    for (size_t i = 0; !clients_done.load(); ++i) {
      if (!Configure(toggled[i % toggled.size()]).ok()) {
        rejected_configures.fetch_add(1);
      }
      toggles.fetch_add(1);
      // Two cores: leave the callers theirs whenever they can run.
      std::this_thread::yield();
    }
  });

  Failures failures;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int t = 0; t < kClientThreads; ++t) {
    clients.emplace_back([&, t] {
      auto stub = echo::Echo::NewStub(channel);
      echo::EchoRequest request;
      request.set_payload(echo::MakePayload(kPayloadBytes, t));
      for (int i = 0; i < kCallsPerThread; ++i) {
        grpc::ClientContext context;
        echo::EchoResponse response;
        const grpc::Status status = stub->Unary(&context, request, &response);
        if (!status.ok()) {
          failures.Add(std::to_string(status.error_code()) + " " +
                       status.error_message());
        } else if (response.payload() != request.payload()) {
          failures.Add("echo differs");
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  clients_done.store(true);
  toggler.join();
  EXPECT_TRUE(Configure(saved).ok());

  const uint64_t calls = uint64_t{kClientThreads} * kCallsPerThread;
  std::cout << "  " << calls << " unary calls in " << seconds << " s, "
            << toggles.load() << " Configure() calls, " << failures.count
            << " failed\n";
  EXPECT_EQ(rejected_configures.load(), 0u);
  // Enough toggles that calls ran under every setting, many times over.
  EXPECT_GT(toggles.load(), 10 * toggled.size());
  std::lock_guard<std::mutex> lock(failures.mutex);
  EXPECT_EQ(failures.count.load(), 0u) << "first: " << failures.first;
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
