// One measured run of the end-to-end benchmark, in a client process: some
// client threads echo a payload through the process's channel for a time
// budget, and everything the process spent meanwhile is recorded.

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
#include "echo_client_lib.h"
#include "payloads.h"
#include "pooled_gzip/pool_stats.h"
#include "process_stats.h"

namespace pooled_gzip::bench {

using echo::Rpc;
using echo::RpcName;

// The RPC kinds the benchmark measures: "unary" or "bidi".
bool ParseMeasuredRpc(const std::string& name, Rpc* rpc);

// What one table row of the report measures, minus the setup.
struct Cell {
  Rpc rpc = Rpc::kUnary;
  int threads = 1;
  payloads::Kind kind = payloads::Kind::kRecords;
  size_t size = 0;
};

// What a process has spent so far; the difference of two snapshots is what
// it spent in between. Client and server processes both report these.
struct Counters {
  ProcessUsage usage;
  AllocCounts allocs;
  uint64_t pool_created = 0;
  uint64_t pool_reused = 0;
  // The codec's own counters (GetTrafficStats), summed over algorithms and
  // backends: messages through it and the time inside it, per direction.
  uint64_t compressed = 0;
  uint64_t compress_ns = 0;
  uint64_t decompressed = 0;
  uint64_t decompress_ns = 0;
  // Of the decompressed: those inflated, and the gzip bytes they arrived as
  // (what a received message weighs on the wire, its frame prefix aside).
  uint64_t inflated = 0;
  uint64_t inflated_wire_bytes = 0;
  uint64_t rss_bytes = 0;  // resident now (not a difference)
};
Counters ReadCounters();
// Differences of the cumulative members; rss_bytes from `after`.
Counters operator-(const Counters& after, const Counters& before);
// Sums of the cumulative members; rss_bytes the larger.
void Accumulate(const Counters& run, Counters* total);

// Counters as "key=value" words on one line, and back; false if a key is
// missing.
std::string ToWords(const Counters& counters);
bool FromWords(const std::string& line, Counters* counters);

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
  Counters spent;  // by the client process during the window
};

// A run as one line for the orchestrator ("result key=value ...
// latencies=a,b,c error=text"), and back.
DirectString ToLine(const RunResult& run);
bool FromLine(const std::string& line, RunResult* run);

// Runs `cell` on `stub` with `payload` (cell.size bytes), on the first
// cell.threads of `clients`.
RunResult RunCell(ClientThreads& clients, echo::Echo::Stub* stub,
                  const Cell& cell, const std::string& payload,
                  const Budget& budget);

// Folds `run` into `total`: counts and times add up, latencies append.
void Accumulate(const RunResult& run, RunResult* total);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_RUNNER_H_
