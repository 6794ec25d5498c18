// Soak: messages through the pooled echo pair (gzip both ways, client and
// server compressing from the pool) on several client threads, cycling
// through the four RPC kinds. Fails on any error, lost or altered message,
// and, outside sanitizer builds, on resident memory growing from the first
// 10% of the messages to the end. CTest runs a short soak; the long one:
//
//   soak --messages=1000000 --threads=2

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "pool_at_rest.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"

ABSL_FLAG(int64_t, messages, 20000, "messages to echo, over all threads");
ABSL_FLAG(int, threads, 2, "client threads, each with its own channel");
ABSL_FLAG(int, size, 1024, "payload bytes per message");
ABSL_FLAG(double, max_rss_growth_mib, 32,
          "fail if RSS grows by more than this from 10% of the messages to "
          "the end; negative disables; not applied under sanitizers");

namespace pooled_gzip::reliability {
namespace {

using echo::Rpc;

// Messages per call of each kind: streams carry many, unary one per call.
struct Batch {
  Rpc rpc;
  int count;
};
constexpr Batch kCycle[] = {{Rpc::kBidi, 1000},
                            {Rpc::kUnary, 200},
                            {Rpc::kServerStream, 1000},
                            {Rpc::kClientStream, 1000}};

struct Progress {
  explicit Progress(int64_t total) : total(total) {}

  // Records RSS the first time the count crosses each tenth of the total.
  void Add(int64_t messages) {
    const int64_t before = done.fetch_add(messages);
    const int decile_before = static_cast<int>(before * 10 / total);
    const int decile_after = static_cast<int>((before + messages) * 10 / total);
    if (decile_after == decile_before) return;
    const size_t rss = CurrentRssBytes();
    std::lock_guard<std::mutex> lock(mutex);
    for (int d = decile_before + 1; d <= std::min(decile_after, 10); ++d) {
      rss_at_decile[d] = rss;
    }
  }

  const int64_t total;
  std::atomic<int64_t> done{0};
  std::atomic<int64_t> errors{0};
  std::mutex mutex;
  size_t rss_at_decile[11] = {};
};

void Client(const std::string& target, int thread, Progress* progress) {
  auto stub = echo::Echo::NewStub(
      echo::MakeChannel(target, echo::Mode::kPooled, GRPC_COMPRESS_GZIP));
  const int threads = absl::GetFlag(FLAGS_threads);
  int64_t mine =
      progress->total / threads + (thread < progress->total % threads ? 1 : 0);
  for (size_t step = thread; mine > 0; ++step) {
    const Batch& batch = kCycle[step % std::size(kCycle)];
    echo::LoadOptions load;
    load.rpc = batch.rpc;
    load.count = static_cast<int>(std::min<int64_t>(batch.count, mine));
    load.size = absl::GetFlag(FLAGS_size);
    load.response_algorithm = GRPC_COMPRESS_GZIP;
    const echo::LoadResult result = echo::RunLoad(stub.get(), load);
    if (!result.status.ok() || result.mismatches != 0 ||
        result.messages != load.count) {
      progress->errors.fetch_add(1);
      std::fprintf(stderr, "soak: %s call failed: %s, %d of %d, %d altered\n",
                   echo::RpcName(batch.rpc),
                   result.status.error_message().c_str(), result.messages,
                   load.count, result.mismatches);
    }
    mine -= load.count;
    progress->Add(load.count);
  }
}

int Run() {
  echo::ServerOptions options;
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  echo::RunningServer server = echo::StartEchoServer(options);
  const std::string target = "127.0.0.1:" + std::to_string(server.port);
  Progress progress(std::max<int64_t>(absl::GetFlag(FLAGS_messages), 10));
  const int threads = std::max(1, absl::GetFlag(FLAGS_threads));
  const size_t rss_start = CurrentRssBytes();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int i = 0; i < threads; ++i) {
    clients.emplace_back(Client, target, i, &progress);
  }
  for (std::thread& client : clients) client.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  server.server->Shutdown();
  server.server->Wait();

  const size_t rss_first_tenth = progress.rss_at_decile[1];
  const size_t rss_end = progress.rss_at_decile[10];
  const double growth_mib =
      (static_cast<double>(rss_end) - static_cast<double>(rss_first_tenth)) /
      kMiB;
  std::printf(
      "soak: %lld messages on %d threads in %.1f s (%.0f msg/s), "
      "%lld errors\n",
      static_cast<long long>(progress.done.load()), threads, seconds,
      progress.done.load() / seconds,
      static_cast<long long>(progress.errors.load()));
  std::printf("soak: RSS at start %.1f MiB; after each tenth:",
              rss_start / double(kMiB));
  for (int d = 1; d <= 10; ++d) {
    std::printf(" %.1f", progress.rss_at_decile[d] / double(kMiB));
  }
  std::printf(
      " MiB\nsoak: RSS after the first 10%% %.1f MiB, at the end "
      "%.1f MiB (%+.1f MiB)\n",
      rss_first_tenth / double(kMiB), rss_end / double(kMiB), growth_mib);
  PoolStats stats;
  const bool at_rest = PoolComesToRest(&stats);
  std::printf("soak: pool %s\n", ToString(stats).c_str());

  bool ok =
      progress.errors.load() == 0 && progress.done.load() == progress.total;
  if (!at_rest) {
    std::printf("soak: FAIL: contexts left checked out\n");
    ok = false;
  }
  const double max_growth = absl::GetFlag(FLAGS_max_rss_growth_mib);
  if (kSanitized) {
    std::printf(
        "soak: RSS bound not applied: sanitizer shadow memory and "
        "quarantine grow RSS by design; LeakSanitizer checks leaks\n");
  } else if (max_growth >= 0 && growth_mib > max_growth) {
    std::printf("soak: FAIL: RSS grew by %.1f MiB, more than %.1f MiB\n",
                growth_mib, max_growth);
    ok = false;
  }
  std::printf("soak: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace pooled_gzip::reliability

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return pooled_gzip::reliability::Run();
}
