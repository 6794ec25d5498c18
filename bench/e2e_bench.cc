// End-to-end benchmark: the echo service over loopback in three modes (no
// compression, stock gRPC gzip, pooled gzip), all in one process and
// interleaved, so that the ratios between modes survive a noisy machine.
//
// Cells run from the smallest payload to the largest. Order matters on
// glibc: the first time a block above the mmap threshold (128 KiB) is
// freed, malloc raises its trim threshold for the rest of the process, and
// stock gzip's per-message cost for small messages drops with it. Running
// small sizes first measures them as a process that only ever sees small
// messages would (the harness keeps its own large buffers out of malloc, see
// direct_allocator.h); --label and the MALLOC_* environment let the run
// script add a second run with the trim threshold raised up front.
//
// Usage: e2e_bench [--sizes=1,1024] [--rpcs=unary,bidi] [--threads=1,2]
//                  [--reps=3] [--budget_ms=250] [--out=e2e.json]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "alloc_counter.h"
#include "client_threads.h"
#include "e2e_modes.h"
#include "e2e_results.h"
#include "e2e_runner.h"
#include "payloads.h"
#include "pooled_gzip/codec.h"
#include "process_stats.h"

ABSL_FLAG(std::vector<std::string>, sizes,
          std::vector<std::string>({"1", "1024", "8192", "65536", "1048576"}),
          "Payload sizes in bytes.");
ABSL_FLAG(std::vector<std::string>, rpcs,
          std::vector<std::string>({"unary", "bidi"}),
          "RPC kinds: unary, bidi.");
ABSL_FLAG(std::vector<std::string>, threads,
          std::vector<std::string>({"1", "2"}), "Client thread counts.");
ABSL_FLAG(int, reps, 3, "Repetitions of each mode per cell, interleaved.");
ABSL_FLAG(int, budget_ms, 250, "Time per mode per repetition.");
ABSL_FLAG(int, min_messages, 3, "Round trips per thread per run, at least.");
ABSL_FLAG(int, warmup_ms, 40, "Unrecorded run per mode before each cell.");
ABSL_FLAG(std::string, payload, "text", "Payload kind: text, proto, random.");
ABSL_FLAG(std::string, label, "default heap", "Name of this run.");
ABSL_FLAG(std::string, out, "", "Write the results as JSON to this file.");

namespace pooled_gzip::bench {
namespace {

bool ParseCells(std::vector<Cell>* cells) {
  std::vector<size_t> sizes;
  for (const std::string& s : absl::GetFlag(FLAGS_sizes)) {
    size_t size;
    if (!absl::SimpleAtoi(s, &size)) return false;
    sizes.push_back(size);
  }
  std::vector<Rpc> rpcs;
  for (const std::string& s : absl::GetFlag(FLAGS_rpcs)) {
    if (s == "unary") {
      rpcs.push_back(Rpc::kUnary);
    } else if (s == "bidi") {
      rpcs.push_back(Rpc::kBidi);
    } else {
      return false;
    }
  }
  std::vector<int> thread_counts;
  for (const std::string& s : absl::GetFlag(FLAGS_threads)) {
    int n;
    if (!absl::SimpleAtoi(s, &n) || n < 1) return false;
    thread_counts.push_back(n);
  }
  std::sort(sizes.begin(), sizes.end());  // see the file comment
  for (size_t size : sizes) {
    for (Rpc rpc : rpcs) {
      for (int threads : thread_counts) cells->push_back({rpc, threads, size});
    }
  }
  return !cells->empty();
}

bool ParsePayloadKind(const std::string& name, PayloadKind* kind) {
  for (PayloadKind k : AllPayloadKinds()) {
    if (name == PayloadKindName(k)) {
      *kind = k;
      return true;
    }
  }
  return false;
}

// The glibc malloc settings that change stock gzip's cost, as set in the
// environment (they are read once, at the first malloc).
std::string HeapDescription() {
  std::string description;
  for (const char* name : {"MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_",
                           "MALLOC_ARENA_MAX"}) {
    if (const char* value = std::getenv(name)) {
      if (!description.empty()) description += " ";
      description += std::string(name) + "=" + value;
    }
  }
  return description.empty() ? "glibc defaults" : description;
}

// Runs every mode of `cell` `reps` times, rotating which mode goes first so
// that none always follows the same one.
std::vector<Row> RunInterleaved(Endpoints& endpoints, ClientThreads& clients,
                                const Cell& cell, int cell_index,
                                const std::string& payload,
                                RssSampler& sampler) {
  Budget warmup;
  warmup.duration = std::chrono::milliseconds(absl::GetFlag(FLAGS_warmup_ms));
  warmup.min_messages = 2;
  Budget budget;
  budget.duration = std::chrono::milliseconds(absl::GetFlag(FLAGS_budget_ms));
  budget.min_messages = absl::GetFlag(FLAGS_min_messages);

  std::vector<Row> rows(kModeCount);
  for (Mode mode : kAllModes) {
    Row& row = rows[static_cast<int>(mode)];
    row.cell = cell;
    row.mode = mode;
    // Connections, the pool and malloc's arenas warm up here, unrecorded,
    // except for errors.
    const RunResult warm =
        RunCell(clients, endpoints.stub(mode), cell, payload, warmup);
    row.total.errors += warm.errors;
    row.total.first_error = warm.first_error;
  }
  const int reps = absl::GetFlag(FLAGS_reps);
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 0; k < kModeCount; ++k) {
      const Mode mode = kAllModes[(rep + k) % kModeCount];
      Row& row = rows[static_cast<int>(mode)];
      const int label = cell_index * kModeCount + static_cast<int>(mode);
      sampler.SetLabel(label);
      const RunResult run =
          RunCell(clients, endpoints.stub(mode), cell, payload, budget);
      sampler.SetLabel(-1);
      row.rep_p50_us.push_back(Quantile(run.latencies_us, 0.5));
      Accumulate(run, &row.total);
      row.peak_rss_bytes = sampler.PeakFor(label);
    }
  }
  return rows;
}

int Main() {
  std::vector<Cell> cells;
  if (!ParseCells(&cells)) {
    std::fprintf(stderr, "e2e_bench: bad --sizes, --rpcs or --threads\n");
    return 2;
  }
  PayloadKind kind;
  if (!ParsePayloadKind(absl::GetFlag(FLAGS_payload), &kind)) {
    std::fprintf(stderr, "e2e_bench: unknown --payload\n");
    return 2;
  }
  if (!AllocCounterActive()) {
    std::fprintf(stderr, "e2e_bench: the malloc interposer is not active\n");
    return 1;
  }
  Endpoints endpoints;
  if (!endpoints.Start()) return 1;
  RssSampler sampler;
  int max_threads = 1;
  for (const Cell& cell : cells)
    max_threads = std::max(max_threads, cell.threads);
  ClientThreads clients(max_threads);

  RunInfo info;
  info.label = absl::GetFlag(FLAGS_label);
  info.payload = PayloadKindName(kind);
  info.heap = HeapDescription();
  info.reps = absl::GetFlag(FLAGS_reps);
  info.budget_ms = absl::GetFlag(FLAGS_budget_ms);
  std::printf("e2e_bench: %s, %s payload, %s, %d reps x %d ms per mode\n",
              info.label.c_str(), info.payload.c_str(), info.heap.c_str(),
              info.reps, info.budget_ms);

  std::vector<Row> all_rows;
  uint64_t errors = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string payload = MakePayload(kind, cells[i].size);
    std::vector<Row> rows = RunInterleaved(
        endpoints, clients, cells[i], static_cast<int>(i), payload, sampler);
    PrintCell(rows);
    for (Row& row : rows) {
      errors += row.total.errors;
      all_rows.push_back(std::move(row));
    }
  }
  std::printf("pool: %s\n", ToString(GetPoolStats()).c_str());
  std::printf("process peak RSS: %.1f MiB\n",
              static_cast<double>(PeakRssBytes()) / (1 << 20));

  const std::string out = absl::GetFlag(FLAGS_out);
  if (!out.empty()) {
    std::ofstream file(out);
    file << ToJson(info, all_rows);
    if (!file) {
      std::fprintf(stderr, "e2e_bench: could not write %s\n", out.c_str());
      return 1;
    }
  }
  endpoints.Shutdown();
  if (errors > 0) {
    std::fprintf(stderr, "e2e_bench: %llu failed round trips\n",
                 static_cast<unsigned long long>(errors));
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace pooled_gzip::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return pooled_gzip::bench::Main();
}
