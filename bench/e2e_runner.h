// One measured run of the end-to-end benchmark: some client threads echo a
// payload through one mode's channel for a time budget, and everything the
// process spent meanwhile is recorded.

#ifndef POOLED_GZIP_BENCH_E2E_RUNNER_H_
#define POOLED_GZIP_BENCH_E2E_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "alloc_counter.h"
#include "client_threads.h"
#include "direct_allocator.h"
#include "echo.grpc.pb.h"
#include "pooled_gzip/pool_stats.h"
#include "process_stats.h"

namespace pooled_gzip::bench {

enum class Rpc { kUnary, kBidi };
const char* RpcName(Rpc rpc);  // "unary", "bidi"

// What one table row of the report measures, minus the mode.
struct Cell {
  Rpc rpc = Rpc::kUnary;
  int threads = 1;
  size_t size = 0;
};

struct Budget {
  // Each thread sends until this much time has passed and it has sent at
  // least `min_messages`, or until it has sent `max_messages`.
  std::chrono::milliseconds duration{250};
  int min_messages = 3;
  int max_messages = 1000000;
};

// Everything measured during one run. A "message" is one round trip: a
// request and its echo, so two messages compressed and two decompressed.
// Setup (opening a bidi stream with its first round trip) happens before
// the measured window opens and counts in none of the figures.
struct RunResult {
  uint64_t messages = 0;
  uint64_t errors = 0;
  std::string first_error;
  Latencies latencies_us;  // one per round trip, in microseconds
  double wall_seconds = 0;
  ProcessUsage usage;  // delta over the run
  AllocCounts allocs;  // delta over the run
  PoolStats pool;      // created and reused are deltas over the run
};

// Runs `cell` on `stub` with `payload` (cell.size bytes), on the first
// cell.threads of `clients`.
RunResult RunCell(ClientThreads& clients, echo::Echo::Stub* stub,
                  const Cell& cell, const std::string& payload,
                  const Budget& budget);

// Folds `run` into `total`: counts and times add up, latencies append.
void Accumulate(const RunResult& run, RunResult* total);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_RUNNER_H_
