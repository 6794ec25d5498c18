// End-to-end benchmark: the echo service over loopback, client and server
// in separate processes, for each setup (no compression, stock gRPC gzip,
// pooled gzip per backend and level; see e2e_setups.h), interleaved, so
// that the ratios between setups survive a noisy machine.
//
// This process only orchestrates: it starts this same binary as a server
// and a client process of one setup (--role=server|client, see
// e2e_peer.h), which must be separate because pooled-gzip's core codec,
// once set up, serves every gzip message of its process. It asks the client
// for a warm-up and a timed run and the server for what it spent meanwhile,
// then moves to the next setup (which goes first rotates over the
// repetitions). By default every run gets a new pair of processes
// (--fresh_pairs), which also gives every run a fresh heap: on glibc, the
// first time a block above the mmap threshold (128 KiB) is freed, malloc
// raises its trim threshold for the rest of the process, and stock gzip's
// per-message cost for small messages drops with it (the harness keeps its
// own large buffers out of malloc, see direct_allocator.h). Cells still run
// from the smallest payload to the largest, which keeps that true with
// --fresh_pairs=false too. The MALLOC_* environment, which the peers
// inherit, lets the run script add a run with the trim threshold raised up
// front. Last comes the load cell: many concurrent streams on one payload
// size, for server throughput.
//
// --link puts the whole run on a shaped loopback (e2e_link.h): this process
// moves into a network namespace of its own before it starts any peer, so
// every peer inherits the link, and the output states the link it got.
//
// Usage: e2e_bench [--sizes=1,1024] [--kinds=proto,json]
//                  [--setups=none,stock,zlib-6,libdeflate,isal-1,default]
//                  [--reps=3] [--budget_ms=150] [--load_threads=32]
//                  [--link=loopback|1gbit|100mbit|10mbit] [--out=e2e.json]

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "alloc_counter.h"
#include "child_process.h"
#include "codec/settings.h"
#include "e2e_link.h"
#include "e2e_peer.h"
#include "e2e_results.h"
#include "e2e_runner.h"
#include "e2e_setups.h"
#include "e2e_table.h"
#include "echo.pb.h"
#include "payloads.h"

ABSL_FLAG(std::vector<std::string>, sizes,
          std::vector<std::string>({"1", "1024", "65536", "1048576"}),
          "Payload sizes in bytes.");
ABSL_FLAG(std::vector<std::string>, kinds,
          std::vector<std::string>({"proto", "json", "source", "text", "words",
                                    "random"}),
          "Payload kinds (examples/payloads.h).");
ABSL_FLAG(std::vector<std::string>, setups,
          std::vector<std::string>({"none", "stock", "zlib-6", "libdeflate",
                                    "isal-1", "default"}),
          "Setups: none, stock, default (the library's default backend), "
          "or <backend>[-<level>] for zlib, libdeflate, isal; a pooled one "
          "may end in +skip (skip_incompressible on).");
ABSL_FLAG(std::string, rpc, "bidi", "RPC kind of the latency cells.");
ABSL_FLAG(int, reps, 3, "Repetitions of each setup per cell, interleaved.");
ABSL_FLAG(int, budget_ms, 150, "Time per setup per repetition.");
ABSL_FLAG(int, min_messages, 3, "Round trips per thread per run, at least.");
ABSL_FLAG(int, warmup_ms, 30, "Unrecorded run per setup before each cell.");
ABSL_FLAG(int, warmup_messages, 2,
          "Round trips of the unrecorded run, at least (1 on slow links).");
ABSL_FLAG(int, load_threads, 32,
          "Concurrent bidi streams of the load cell; 0: no load cell.");
ABSL_FLAG(std::string, load_kind, "proto", "Payload kind of the load cell.");
ABSL_FLAG(int, load_size, 65536, "Payload size of the load cell.");
ABSL_FLAG(int, load_budget_ms, 1000, "Time per setup per load repetition.");
ABSL_FLAG(int, load_warmup_ms, 500,
          "Unrecorded load run per setup before the load cell.");
ABSL_FLAG(bool, fresh_pairs, true,
          "Start a new server and client process for every run. A process "
          "pair on a busy machine can sit in a slow state (how the "
          "scheduler placed it, which gRPC thread polls) for seconds, which "
          "interleaving cannot cancel; new pairs per run make it one run's "
          "luck, which the medians over repetitions drop. false: one pair "
          "per setup for the whole benchmark (faster).");
ABSL_FLAG(std::string, pin, "none",
          "split: every client process on CPU 0, every server on CPU 1; "
          "same: both on CPU 0; none: where the scheduler puts them "
          "(pinned, a small message's round trip then waits for other "
          "load on that CPU).");
ABSL_FLAG(std::string, label, "default heap", "Name of this run.");
ABSL_FLAG(std::string, out, "", "Write the results as JSON to this file.");
ABSL_FLAG(std::string, link, "loopback",
          "The peers' link: loopback (unshaped), or a rate such as 1gbit, "
          "100mbit, 10mbit: loopback shaped by tc tbf in a network "
          "namespace of this run's own (needs root and tc; without them the "
          "run says so and uses plain loopback).");
ABSL_FLAG(int, link_delay_ms, 0,
          "With --link at a rate: one-way delay, where the kernel has netem.");
ABSL_FLAG(std::string, tc, "",
          "The tc binary for --link; empty: found in PATH, /usr/sbin or "
          "/sbin. A path that does not exist forces the fallback.");
ABSL_FLAG(bool, table, false,
          "Print one comparison table at the end (scripts/demo.sh), not a "
          "block per cell; for the setups none, stock and one pooled one.");

// The peers' flags (set by the orchestrator).
ABSL_FLAG(std::string, role, "", "server or client: a peer process.");
ABSL_FLAG(std::string, compression, "none", "Peer: none, stock or pooled.");
ABSL_FLAG(std::string, backend, "zlib", "Peer: zlib, libdeflate or isal.");
ABSL_FLAG(int, level, -1, "Peer: the backend's level.");
ABSL_FLAG(bool, configure, false, "Peer: call pooled_gzip::Configure.");
ABSL_FLAG(bool, skip_incompressible, false,
          "Peer: Options::skip_incompressible in that Configure.");
ABSL_FLAG(std::string, target, "", "Client peer: the server's address.");
ABSL_FLAG(int, max_threads, 1, "Client peer: client threads to keep.");
ABSL_FLAG(int, cpu, -1, "Peer: the only CPU to run on; -1: any.");

namespace pooled_gzip::bench {
namespace {

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

// The CPUs this process may run on.
int CpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return CPU_COUNT(&set);
}

std::string SelfPath() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "/proc/self/exe";
  return std::string(path, static_cast<size_t>(n));
}

// One setup's server and client processes.
struct Peers {
  Setup setup;
  std::unique_ptr<support::ChildProcess> server;
  std::unique_ptr<support::ChildProcess> client;
  bool running = false;
};

// A peer reads commands on its stdin and exits at its end; its stderr is
// this process's.
absl::StatusOr<std::unique_ptr<support::ChildProcess>> StartPeer(
    const std::vector<std::string>& argv) {
  support::ChildProcess::Options options;
  options.pipe_stdin = true;
  options.capture_stderr = false;
  return support::ChildProcess::Start(argv, options);
}

// The peer's next line; empty if there is none (what failed goes to stderr
// with the caller's message).
std::string NextLine(support::ChildProcess& peer,
                     absl::Duration timeout = absl::Minutes(5)) {
  absl::StatusOr<std::string> line = peer.ReadLine(timeout);
  if (!line.ok()) {
    std::fprintf(stderr, "e2e_bench: %s\n",
                 std::string(line.status().message()).c_str());
    return "";
  }
  return *std::move(line);
}

// How peers are started, for every setup alike.
struct PeerConfig {
  std::string self;  // this binary
  int max_threads = 1;
  std::string pin;  // none, split or same
  // A new pair of processes for every run (else one per setup for the
  // whole benchmark).
  bool fresh = true;
};

bool Fail(const std::string& what) {
  std::fprintf(stderr, "e2e_bench: %s\n", what.c_str());
  return false;
}

int ExitWith(int code, const std::string& what) {
  Fail(what);
  return code;
}

// Starts the server, then the client, and checks that each has the core
// codec exactly when its setup is pooled: stock must really be stock.
bool StartPeers(const PeerConfig& config, Peers* peers) {
  const std::string name = SetupName(peers->setup);
  const bool pooled = peers->setup.compression == Compression::kPooled;
  const std::string expected = pooled ? "core_codec=1" : "core_codec=0";
  std::vector<std::string> argv = {config.self, "--role=server"};
  for (const std::string& flag : PeerFlags(peers->setup)) argv.push_back(flag);
  // See --pin.
  const std::string server_cpu = config.pin == "split"  ? "1"
                                 : config.pin == "same" ? "0"
                                                        : "-1";
  argv.push_back("--cpu=" + server_cpu);
  auto server = StartPeer(argv);
  if (!server.ok()) return Fail(std::string(server.status().message()));
  peers->server = *std::move(server);
  std::string line = NextLine(*peers->server, absl::Seconds(30));
  if (line.rfind("listening ", 0) != 0) {
    return Fail(name + " server: " + line);
  }
  int port = 0;
  const std::string rest = line.substr(10);
  if (!absl::SimpleAtoi(rest.substr(0, rest.find(' ')), &port) ||
      rest.find(expected) == std::string::npos) {
    return Fail(name + " server: expected " + expected + ": " + line);
  }
  argv[1] = "--role=client";
  argv.back() = config.pin == "none" ? "--cpu=-1" : "--cpu=0";
  argv.push_back(absl::StrCat("--target=127.0.0.1:", port));
  argv.push_back(absl::StrCat("--max_threads=", config.max_threads));
  auto client = StartPeer(argv);
  if (!client.ok()) return Fail(std::string(client.status().message()));
  peers->client = *std::move(client);
  line = NextLine(*peers->client, absl::Seconds(30));
  if (line.rfind("ready ", 0) != 0 ||
      line.find(expected) == std::string::npos) {
    return Fail(name + " client: expected ready " + expected + ": " + line);
  }
  peers->running = true;
  return true;
}

// Ends each peer's input, on which it exits; one that does not is killed.
void StopPeers(Peers* peers) {
  for (auto* peer : {&peers->client, &peers->server}) {
    if (*peer == nullptr) continue;
    (*peer)->CloseStdin();
    (*peer)->WaitForExit(absl::Seconds(10)).IgnoreError();
    peer->reset();
  }
  peers->running = false;
}

bool ServerCounters(Peers& peers, Counters* counters) {
  std::string line;
  if (peers.server->WriteLine("stats").ok()) line = NextLine(*peers.server);
  if (line.rfind("stats ", 0) != 0 || !FromWords(line, counters)) {
    return Fail(SetupName(peers.setup) + " server: no stats: " + line);
  }
  return true;
}

bool ClientRun(Peers& peers, const Cell& cell, int duration_ms,
               int min_messages, RunResult* run) {
  const std::string command = RunCommand(cell, duration_ms, min_messages);
  std::string line;
  if (peers.client->WriteLine(command).ok()) line = NextLine(*peers.client);
  if (!FromLine(line, run)) {
    return Fail(SetupName(peers.setup) + " client: no result for \"" + command +
                "\": " + line.substr(0, 200));
  }
  return true;
}

// Runs every setup on `cell` `reps` times, rotating which setup goes first
// so that none always follows the same one. False if a process failed
// (round trips that failed are counted in the rows, not here).
bool RunInterleaved(const PeerConfig& config,
                    std::vector<std::unique_ptr<Peers>>& peers,
                    const Cell& cell, int reps, int budget_ms, int warmup_ms,
                    std::vector<Row>* rows) {
  const int count = static_cast<int>(peers.size());
  echo::EchoRequest request;
  request.set_payload(payloads::Make(cell.kind, cell.size));
  const std::string serialized = request.SerializeAsString();
  rows->assign(count, Row());
  for (int i = 0; i < count; ++i) {
    Row& row = (*rows)[i];
    row.cell = cell;
    row.setup = peers[i]->setup;
    row.request_bytes = serialized.size();
    row.wire_bytes = WireBytes(row.setup, serialized);
  }
  const int min_messages = absl::GetFlag(FLAGS_min_messages);
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 0; k < count; ++k) {
      const int i = (rep + k) % count;
      Peers& pair = *peers[i];
      Row& row = (*rows)[i];
      if (!pair.running && !StartPeers(config, &pair)) return false;
      // Connections, pools and malloc's arenas warm up here, unrecorded,
      // except for errors.
      if (config.fresh || rep == 0) {
        RunResult warm;
        if (!ClientRun(pair, cell, warmup_ms,
                       absl::GetFlag(FLAGS_warmup_messages), &warm)) {
          return false;
        }
        if (warm.errors > 0 && row.total.errors == 0) {
          row.total.first_error = warm.first_error;
        }
        row.total.errors += warm.errors;
      }
      Counters before, after;
      RunResult run;
      if (!ServerCounters(pair, &before) ||
          !ClientRun(pair, cell, budget_ms, min_messages, &run) ||
          !ServerCounters(pair, &after)) {
        return false;
      }
      if (config.fresh) StopPeers(&pair);
      row.rep_p50_us.push_back(Quantile(run.latencies_us, 0.5));
      row.rep_msgs_per_s.push_back(run.wall_seconds > 0
                                       ? static_cast<double>(run.messages) /
                                             run.wall_seconds
                                       : 0);
      Accumulate(run, &row.total);
      Accumulate(after - before, &row.server);
    }
  }
  return true;
}

bool ParseCells(std::vector<Cell>* cells) {
  std::vector<size_t> sizes;
  for (const std::string& s : absl::GetFlag(FLAGS_sizes)) {
    size_t size;
    if (!absl::SimpleAtoi(s, &size)) return Fail("bad --sizes item " + s);
    sizes.push_back(size);
  }
  std::sort(sizes.begin(), sizes.end());  // see the file comment
  std::vector<payloads::Kind> kinds;
  for (const std::string& s : absl::GetFlag(FLAGS_kinds)) {
    const std::optional<payloads::Kind> kind = payloads::ParseKind(s);
    if (!kind) return Fail("unknown --kinds item " + s);
    kinds.push_back(*kind);
  }
  Rpc rpc;
  if (!ParseMeasuredRpc(absl::GetFlag(FLAGS_rpc), &rpc))
    return Fail("bad --rpc");
  for (size_t size : sizes) {
    for (payloads::Kind kind : kinds) cells->push_back({rpc, 1, kind, size});
  }
  return true;
}

int Orchestrate() {
  std::vector<Cell> cells;
  if (!ParseCells(&cells)) return 2;
  const int load_threads = absl::GetFlag(FLAGS_load_threads);
  std::optional<Cell> load_cell;
  if (load_threads > 0) {
    const std::optional<payloads::Kind> kind =
        payloads::ParseKind(absl::GetFlag(FLAGS_load_kind));
    if (!kind) return ExitWith(2, "unknown --load_kind");
    load_cell = Cell{Rpc::kBidi, load_threads, *kind,
                     static_cast<size_t>(absl::GetFlag(FLAGS_load_size))};
  }
  if (cells.empty() && !load_cell) return ExitWith(2, "nothing to run");
  Link link;
  if (absl::Status status = ParseLink(
          absl::GetFlag(FLAGS_link), absl::GetFlag(FLAGS_link_delay_ms), &link);
      !status.ok()) {
    return ExitWith(2, std::string(status.message()));
  }
  RunInfo info;
  // Before any peer starts: they inherit the namespace.
  info.link_name = link.name;
  info.link = EnterLink(link, absl::GetFlag(FLAGS_tc));
  if (link.rate_bits_per_s > 0 && !info.link.shaped) {
    std::fprintf(stderr, "e2e_bench: %s\n", info.link.description.c_str());
  }
  if (absl::Status status =
          ParseSetups(absl::GetFlag(FLAGS_setups), &info.setups);
      !status.ok()) {
    return ExitWith(2, status.ToString());
  }
  Setup library_default;
  if (ParseSetup("default", &library_default).ok()) {
    info.default_setup = SetupName(library_default);
  }
  info.gzip_decoder =
      std::string(BackendName(pooled_gzip::internal::DefaultDecoder(
          pooled_gzip::internal::Format::kGzip)));
  info.label = absl::GetFlag(FLAGS_label);
  info.heap = HeapDescription();
  info.reps = absl::GetFlag(FLAGS_reps);
  info.budget_ms = absl::GetFlag(FLAGS_budget_ms);
  info.load_budget_ms = absl::GetFlag(FLAGS_load_budget_ms);

  PeerConfig config;
  config.self = SelfPath();
  config.max_threads = std::max(1, load_threads);
  config.pin = absl::GetFlag(FLAGS_pin);
  config.fresh = absl::GetFlag(FLAGS_fresh_pairs);
  if (config.pin != "none" && config.pin != "split" && config.pin != "same") {
    return ExitWith(2, "--pin takes none, split or same");
  }
  if (CpuCount() < 2) config.pin = "none";
  info.pin = config.pin;
  info.fresh_pairs = config.fresh;
  std::vector<std::unique_ptr<Peers>> peers;
  std::string names;
  for (const Setup& setup : info.setups) {
    peers.push_back(std::make_unique<Peers>());
    peers.back()->setup = setup;
    names += " " + SetupName(setup) + (setup.is_default ? "*" : "");
  }
  const bool table = absl::GetFlag(FLAGS_table);
  if (!table) {
    std::printf(
        "e2e_bench: %s, %s, %d reps x %d ms per setup, server and client in "
        "separate processes (%s, pinned: %s); link: %s; setups:%s (* the "
        "library's default, %s)\n",
        info.label.c_str(), info.heap.c_str(), info.reps, info.budget_ms,
        config.fresh ? "new ones for every run" : "one pair per setup",
        config.pin.c_str(), info.link.description.c_str(), names.c_str(),
        info.default_setup.c_str());
    std::fflush(stdout);
  }

  std::vector<Row> all_rows;
  uint64_t errors = 0;
  auto run_cell = [&](const PeerConfig& config, const Cell& cell, int budget_ms,
                      int warmup_ms) {
    std::vector<Row> rows;
    if (!RunInterleaved(config, peers, cell, info.reps, budget_ms, warmup_ms,
                        &rows)) {
      return false;
    }
    if (!table) PrintCell(rows);
    for (Row& row : rows) {
      errors += row.total.errors;
      all_rows.push_back(std::move(row));
    }
    return true;
  };
  for (const Cell& cell : cells) {
    if (!run_cell(config, cell, info.budget_ms,
                  absl::GetFlag(FLAGS_warmup_ms))) {
      return 1;
    }
  }
  if (load_cell) {
    // Throughput is a steady-state figure: new server processes, warmed up
    // once for longer, then kept over the repetitions. A server's first
    // second (threads spawned, heap grown, every thread's first contexts)
    // would otherwise weigh on each repetition, the pooled setups' most.
    for (auto& p : peers) StopPeers(p.get());
    PeerConfig steady = config;
    steady.fresh = false;
    if (!run_cell(steady, *load_cell, info.load_budget_ms,
                  absl::GetFlag(FLAGS_load_warmup_ms))) {
      return 1;
    }
  }
  for (auto& p : peers) StopPeers(p.get());
  if (table) PrintComparisonTable(info, all_rows);

  const std::string out = absl::GetFlag(FLAGS_out);
  if (!out.empty()) {
    std::ofstream file(out);
    file << ToJson(info, all_rows);
    if (!file) return ExitWith(1, "could not write " + out);
  }
  if (errors > 0) {
    std::fprintf(stderr, "e2e_bench: %llu failed round trips\n",
                 static_cast<unsigned long long>(errors));
    return 1;
  }
  return 0;
}

int Peer(const std::string& role) {
  // Before gRPC starts any thread: threads inherit the mask.
  if (const int cpu = absl::GetFlag(FLAGS_cpu); cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
      std::printf("error: cannot run on CPU %d\n", cpu);
      return 1;
    }
  }
  if (!AllocCounterActive()) {
    std::printf("error: the malloc interposer is not active\n");
    return 1;
  }
  Setup setup;
  const absl::Status status = SetupFromPeerFlags(
      absl::GetFlag(FLAGS_compression), absl::GetFlag(FLAGS_backend),
      absl::GetFlag(FLAGS_level), absl::GetFlag(FLAGS_configure),
      absl::GetFlag(FLAGS_skip_incompressible), &setup);
  if (!status.ok()) {
    std::printf("error: %s\n", status.ToString().c_str());
    return 2;
  }
  if (role == "server") return RunServerRole(setup);
  if (role == "client") {
    return RunClientRole(setup, absl::GetFlag(FLAGS_target),
                         std::max(1, absl::GetFlag(FLAGS_max_threads)));
  }
  std::printf("error: unknown --role %s\n", role.c_str());
  return 2;
}

}  // namespace
}  // namespace pooled_gzip::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string role = absl::GetFlag(FLAGS_role);
  return role.empty() ? pooled_gzip::bench::Orchestrate()
                      : pooled_gzip::bench::Peer(role);
}
