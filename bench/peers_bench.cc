// gRPC C++ with and without pooled-gzip against grpc-go and grpc-js, side by
// side: one client (pooled-gzip's default sending gzip, or no compression;
// e2e_bench in its client role, bench/e2e_peer.h) drives each echo server
// of bench/peer_servers.h in turn, interleaved, with the same unary calls:
// one at a time ("single") and from many threads at once ("load"). Only the
// server differs, so what it spends per request is the figure: its CPU time
// (every thread of its process), its peak resident set, and the bytes its
// replies take on the wire (as the client inflated them).
//
// A server that does not listen, exits, or fails a call fails the whole
// run with a message naming it; no figure is written for such a run.
//
// Usage: peers_bench [--setups=cpp-none,...,js-gzip]
//                    [--sizes=1024,65536,1048576] [--kinds=records,words]
//                    [--modes=single,load] [--reps=3] [--out=peers.json]

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "child_process.h"
#include "e2e_peer.h"
#include "e2e_results.h"
#include "e2e_runner.h"
#include "e2e_setups.h"
#include "echo.pb.h"
#include "payloads.h"
#include "peer_servers.h"

ABSL_FLAG(std::vector<std::string>, setups,
          pooled_gzip::bench::ServerSetupNames(), "Servers to compare.");
ABSL_FLAG(std::vector<std::string>, sizes,
          std::vector<std::string>({"1024", "65536", "1048576"}),
          "Payload sizes in bytes.");
ABSL_FLAG(std::vector<std::string>, kinds,
          std::vector<std::string>({"records", "words"}),
          "Payload kinds (testing/payloads.h).");
ABSL_FLAG(std::vector<std::string>, modes,
          std::vector<std::string>({"single", "load"}),
          "single: one call at a time; load: --load_threads at once.");
ABSL_FLAG(int, reps, 4, "Repetitions of each setup per cell, interleaved.");
ABSL_FLAG(int, budget_ms, 1000, "Time per setup per single repetition.");
ABSL_FLAG(int, warmup_ms, 200, "Unrecorded single run before each one.");
ABSL_FLAG(int, load_threads, 32, "Concurrent calls of the load mode.");
ABSL_FLAG(int, load_budget_ms, 2500, "Time per setup per load repetition.");
ABSL_FLAG(int, load_warmup_ms, 1000,
          "Unrecorded load run per server before its first repetition.");
ABSL_FLAG(std::string, go_echo_server, "",
          "The grpc-go echo server to run instead of the interop suite's "
          "(it takes --port=0 and prints \"listening on 127.0.0.1:PORT\").");
ABSL_FLAG(std::string, out, "", "Write the rows as JSON to this file.");

namespace pooled_gzip::bench {
namespace {

struct Mode {
  const char* name;  // "single" or "load"
  int threads;
  int budget_ms;
  int warmup_ms;
  // A new server and client for every run, so that one process's luck
  // (placement, which thread polls) is one run's; under load, one pair per
  // setup warmed once, for a steady state.
  bool fresh;
};

// A server and the client that drives it.
struct Pair {
  ServerSetup setup;
  std::unique_ptr<ServerProcess> server;
  std::unique_ptr<support::ChildProcess> client;

  void Stop() {
    if (client != nullptr) {
      client->CloseStdin();
      client->WaitForExit(absl::Seconds(10)).IgnoreError();
      client.reset();
    }
    server.reset();
  }
};

// All repetitions of one setup in one cell.
struct Row {
  std::string setup;
  std::string client;
  const char* mode = "";
  std::string kind;
  size_t size = 0;
  size_t response_bytes = 0;  // one reply, serialized
  RunResult total;            // the client's runs, folded
  double server_cpu_seconds = 0;
  uint64_t server_peak_rss_bytes = 0;
  int reps = 0;

  double PerRequest(double total_value) const {
    return total.messages ? total_value / total.messages : 0;
  }
  // A reply the client inflated weighs its gzip bytes; one it did not, its
  // serialized size.
  double WireBytesPerReply() const {
    const uint64_t plain = total.messages - total.spent.inflated;
    return PerRequest(static_cast<double>(total.spent.inflated_wire_bytes) +
                      static_cast<double>(plain * response_bytes));
  }
  double RequestsPerSecond() const {
    return total.wall_seconds > 0 ? total.messages / total.wall_seconds : 0;
  }
};

absl::Status StartPair(const ServerPrograms& programs, int max_threads,
                       Pair* pair) {
  absl::StatusOr<std::unique_ptr<ServerProcess>> server =
      ServerProcess::Start(pair->setup, programs);
  if (!server.ok()) return server.status();
  pair->server = *std::move(server);
  const Setup client_setup = ClientSetupFor(pair->setup);
  std::vector<std::string> argv = {programs.e2e_bench, "--role=client"};
  for (const std::string& flag : PeerFlags(client_setup)) argv.push_back(flag);
  argv.push_back(absl::StrCat("--target=127.0.0.1:", pair->server->port()));
  argv.push_back(absl::StrCat("--max_threads=", max_threads));
  support::ChildProcess::Options options;
  options.pipe_stdin = true;
  options.capture_stderr = false;
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> client =
      support::ChildProcess::Start(argv, options);
  if (!client.ok()) return client.status();
  pair->client = *std::move(client);
  const std::string expected =
      pair->setup.gzip ? "core_codec=1" : "core_codec=0";
  absl::StatusOr<std::string> line = pair->client->ReadLine(absl::Seconds(30));
  if (line.ok() && line->rfind("ready ", 0) == 0 &&
      line->find(expected) != std::string::npos) {
    return absl::OkStatus();
  }
  // A server that died says so; one that lives but never answered is not
  // listening where it said.
  if (absl::StatusOr<OtherProcessFigures> alive = pair->server->Figures();
      !alive.ok()) {
    return alive.status();
  }
  return absl::UnavailableError(absl::StrCat(
      "the client could not use the ", pair->setup.name, " server on port ",
      pair->server->port(), " (with ", expected,
      "): ", line.ok() ? *line : std::string(line.status().message())));
}

// One client run; a failed call fails it, naming the server.
absl::StatusOr<RunResult> ClientRun(Pair& pair, const Cell& cell,
                                    int duration_ms) {
  const std::string command = RunCommand(cell, duration_ms, /*min_messages=*/3);
  absl::StatusOr<std::string> line;
  if (absl::Status written = pair.client->WriteLine(command); !written.ok()) {
    line = written;
  } else {
    line = pair.client->ReadLine(absl::Minutes(5));
  }
  RunResult run;
  if (!line.ok() || !FromLine(*line, &run)) {
    return absl::UnavailableError(
        absl::StrCat("the client of ", pair.setup.name, " gave no result: ",
                     line.ok() ? line->substr(0, 200)
                               : std::string(line.status().message())));
  }
  if (run.errors > 0) {
    return absl::UnavailableError(
        absl::StrCat(pair.setup.name, " server failed ", run.errors, " of ",
                     run.messages + run.errors, " calls: ", run.first_error));
  }
  return run;
}

// Every setup on one cell, `reps` times, rotating which goes first.
absl::Status RunCell(const ServerPrograms& programs, const Mode& mode,
                     const std::string& kind, size_t size, int reps,
                     int max_threads, std::vector<Pair>& pairs,
                     std::vector<Row>* rows) {
  const Cell cell{Rpc::kUnary, mode.threads, *payloads::ParseKind(kind), size};
  echo::EchoResponse response;
  response.set_payload(payloads::Make(cell.kind, size));
  const int count = static_cast<int>(pairs.size());
  std::vector<Row> cell_rows(count);
  for (int i = 0; i < count; ++i) {
    cell_rows[i].setup = pairs[i].setup.name;
    cell_rows[i].client = pairs[i].setup.gzip ? "cpp-default" : "cpp-none";
    cell_rows[i].mode = mode.name;
    cell_rows[i].kind = kind;
    cell_rows[i].size = size;
    cell_rows[i].response_bytes = response.ByteSizeLong();
  }
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 0; k < count; ++k) {
      const int i = (rep + k) % count;
      Pair& pair = pairs[i];
      Row& row = cell_rows[i];
      const bool new_pair = pair.server == nullptr;
      if (new_pair) {
        if (absl::Status started = StartPair(programs, max_threads, &pair);
            !started.ok()) {
          return started;
        }
      }
      if (mode.fresh || new_pair) {
        absl::StatusOr<RunResult> warm = ClientRun(pair, cell, mode.warmup_ms);
        if (!warm.ok()) {
          absl::StatusOr<OtherProcessFigures> alive = pair.server->Figures();
          return alive.ok() ? warm.status() : alive.status();
        }
      }
      absl::StatusOr<OtherProcessFigures> before = pair.server->Figures();
      if (!before.ok()) return before.status();
      absl::StatusOr<RunResult> run = ClientRun(pair, cell, mode.budget_ms);
      absl::StatusOr<OtherProcessFigures> after = pair.server->Figures();
      if (!after.ok()) return after.status();  // it died: say so first
      if (!run.ok()) return run.status();
      if (mode.fresh) pair.Stop();
      Accumulate(*run, &row.total);
      row.server_cpu_seconds += after->cpu_seconds - before->cpu_seconds;
      row.server_peak_rss_bytes =
          std::max(row.server_peak_rss_bytes, after->peak_rss_bytes);
      ++row.reps;
    }
  }
  for (Pair& pair : pairs) pair.Stop();  // the next cell starts afresh
  for (Row& row : cell_rows) rows->push_back(std::move(row));
  return absl::OkStatus();
}

void PrintCell(const std::vector<Row>& rows, size_t first) {
  const Row& head = rows[first];
  std::printf("\n%s, %s, %zu bytes (client: pooled-gzip default for gzip)\n",
              head.mode, head.kind.c_str(), head.size);
  std::printf("%-12s %9s %9s %10s %14s %12s %10s\n", "server", "p50 us",
              "p99 us", "req/s", "server CPU us", "peak RSS KiB", "wire B");
  for (size_t i = first; i < rows.size(); ++i) {
    const Row& row = rows[i];
    std::printf(
        "%-12s %9.1f %9.1f %10.0f %14.1f %12llu %10.0f\n", row.setup.c_str(),
        Quantile(row.total.latencies_us, 0.5),
        Quantile(row.total.latencies_us, 0.99), row.RequestsPerSecond(),
        row.PerRequest(row.server_cpu_seconds) * 1e6,
        static_cast<unsigned long long>(row.server_peak_rss_bytes / 1024),
        row.WireBytesPerReply());
  }
  std::fflush(stdout);
}

std::string ToJson(const std::vector<Row>& rows) {
  std::string out = "[\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    absl::StrAppendFormat(
        &out,
        "  {\"size\": %d, \"kind\": \"%s\", \"setup\": \"%s\", "
        "\"client\": \"%s\", \"mode\": \"%s\", "
        "\"server_cpu_us_per_request\": %.2f, \"requests_per_s\": %.1f, "
        "\"p50_us\": %.1f, \"p99_us\": %.1f, \"server_peak_rss_kib\": %d, "
        "\"wire_bytes_per_message\": %.1f, \"requests\": %d, \"reps\": %d}%s\n",
        row.size, row.kind, row.setup, row.client, row.mode,
        row.PerRequest(row.server_cpu_seconds) * 1e6, row.RequestsPerSecond(),
        Quantile(row.total.latencies_us, 0.5),
        Quantile(row.total.latencies_us, 0.99),
        row.server_peak_rss_bytes / 1024, row.WireBytesPerReply(),
        row.total.messages, row.reps, i + 1 < rows.size() ? "," : "");
  }
  return out + "]\n";
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "peers_bench: %s\n", what.c_str());
  return 1;
}

int Run() {
  std::vector<Pair> pairs;
  for (const std::string& name : absl::GetFlag(FLAGS_setups)) {
    absl::StatusOr<ServerSetup> setup = ParseServerSetup(name);
    if (!setup.ok()) return Fail(std::string(setup.status().message()));
    pairs.emplace_back();
    pairs.back().setup = *std::move(setup);
  }
  std::vector<size_t> sizes;
  for (const std::string& s : absl::GetFlag(FLAGS_sizes)) {
    size_t size;
    if (!absl::SimpleAtoi(s, &size)) return Fail("bad --sizes item " + s);
    sizes.push_back(size);
  }
  std::sort(sizes.begin(), sizes.end());
  std::vector<std::string> kinds = absl::GetFlag(FLAGS_kinds);
  for (const std::string& kind : kinds) {
    if (!payloads::ParseKind(kind)) return Fail("unknown --kinds item " + kind);
  }
  std::vector<Mode> modes;
  const int load_threads = std::max(1, absl::GetFlag(FLAGS_load_threads));
  for (const std::string& name : absl::GetFlag(FLAGS_modes)) {
    if (name == "single") {
      modes.push_back({"single", 1, absl::GetFlag(FLAGS_budget_ms),
                       absl::GetFlag(FLAGS_warmup_ms), true});
    } else if (name == "load") {
      modes.push_back({"load", load_threads,
                       absl::GetFlag(FLAGS_load_budget_ms),
                       absl::GetFlag(FLAGS_load_warmup_ms), false});
    } else {
      return Fail("--modes takes single and load, not " + name);
    }
  }
  ServerPrograms programs = BuiltServerPrograms();
  if (const std::string go = absl::GetFlag(FLAGS_go_echo_server); !go.empty()) {
    programs.go = {go, "--port=0"};
  }
  const int reps = std::max(1, absl::GetFlag(FLAGS_reps));
  std::printf(
      "peers_bench: %zu servers, unary echo, %d reps interleaved; each "
      "server and the client in processes of their own\n",
      pairs.size(), reps);
  std::vector<Row> rows;
  for (const Mode& mode : modes) {
    for (size_t size : sizes) {
      for (const std::string& kind : kinds) {
        const size_t first = rows.size();
        if (absl::Status status = RunCell(programs, mode, kind, size, reps,
                                          load_threads, pairs, &rows);
            !status.ok()) {
          return Fail(
              absl::StrCat(status.message(), "\nno figures were written"));
        }
        PrintCell(rows, first);
      }
    }
  }
  const std::string out = absl::GetFlag(FLAGS_out);
  if (!out.empty()) {
    std::ofstream file(out);
    file << ToJson(rows);
    if (!file) return Fail("could not write " + out);
  }
  return 0;
}

}  // namespace
}  // namespace pooled_gzip::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return pooled_gzip::bench::Run();
}
