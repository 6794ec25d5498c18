// gRPC C++ with and without pooled-gzip against grpc-go and grpc-js, side by
// side: a client drives each echo server of bench/peer_servers.h in turn,
// interleaved, with the same unary calls: one at a time ("single") and many
// at once ("load"). Only the server differs, so what it spends per request
// is the figure: its CPU time (every thread of its process), its peak
// resident set, and the bytes its replies take on the wire.
//
// Two clients, each row naming its own: ours (pooled-gzip's default sending
// gzip, or no compression; e2e_bench in its client role, bench/e2e_peer.h),
// and, under load only, h2load (bench/h2load_client.h), which sends every
// server the same bytes and shares no code with gRPC, so that no figure
// rests on our client alone.
//
// A server that does not listen, exits, or fails a call fails the whole
// run with a message naming it; no figure is written for such a run.
//
// Usage: peers_bench [--setups=cpp-none,...,js-gzip] [--clients=ours,h2load]
//                    [--sizes=1024,65536,1048576] [--kinds=records,words]
//                    [--modes=single,load] [--reps=3] [--out=peers.json]

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
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
#include "h2load_client.h"
#include "h2load_request.h"
#include "payloads.h"
#include "peer_servers.h"

ABSL_FLAG(std::vector<std::string>, setups,
          pooled_gzip::bench::ServerSetupNames(), "Servers to compare.");
ABSL_FLAG(std::vector<std::string>, clients,
          std::vector<std::string>({"ours", "h2load"}),
          "ours: e2e_bench's client role; h2load: nghttp2's load generator "
          "(load mode only).");
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
ABSL_FLAG(int, h2load_warmup_ms, 2000,
          "h2load's unrecorded start of each of its runs (its connections "
          "are new each run): long enough that its first 32 calls of 1 MiB "
          "have come back before it measures.");
ABSL_FLAG(std::string, go_echo_server, "",
          "The grpc-go echo server to run instead of the interop suite's "
          "(it takes --port=0 and prints \"listening on 127.0.0.1:PORT\").");
ABSL_FLAG(std::string, h2load, "/usr/bin/h2load",
          "The h2load program (Debian: nghttp2-client).");
ABSL_FLAG(std::string, out, "", "Write the rows as JSON to this file.");

namespace pooled_gzip::bench {
namespace {

struct Mode {
  const char* name;  // "single" or "load"
  int threads;
  int budget_ms;
  int warmup_ms;
  int h2load_warmup_ms;
  // A new server and client for every run, so that one process's luck
  // (placement, which thread polls) is one run's; under load, one pair per
  // setup warmed once, for a steady state.
  bool fresh;
  bool h2load;  // h2load drives the servers too
};

enum class ClientKind { kOurs, kH2load };

// What all of one cell's runs of h2load need: the request, h2load's
// files, and the reply's frame as its probe found it.
struct H2loadCell {
  H2loadTarget target;
  size_t reply_frame = 0;
};

// A server and the client that drives it.
struct Pair {
  ServerSetup setup;
  ClientKind kind = ClientKind::kOurs;
  std::unique_ptr<ServerProcess> server;
  std::unique_ptr<support::ChildProcess> client;  // ours
  H2loadCell h2load;                              // h2load's

  void Stop() {
    if (client != nullptr) {
      client->CloseStdin();
      client->WaitForExit(absl::Seconds(10)).IgnoreError();
      client.reset();
    }
    server.reset();
  }
};

// Where the programs are, and h2load's files.
struct Programs {
  ServerPrograms servers;
  std::string h2load;
  std::string scratch_dir;
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
  // h2load's: one reply's gRPC frame, prefix included (its probe).
  size_t reply_frame = 0;

  double PerRequest(double total_value) const {
    return total.messages ? total_value / total.messages : 0;
  }
  // A reply our client inflated weighs its gzip bytes; one it did not, its
  // serialized size. h2load's weigh what its probe read.
  double WireBytesPerReply() const {
    if (reply_frame > 0) {
      return static_cast<double>(reply_frame - kGrpcPrefixBytes);
    }
    const uint64_t plain = total.messages - total.spent.inflated;
    return PerRequest(static_cast<double>(total.spent.inflated_wire_bytes) +
                      static_cast<double>(plain * response_bytes));
  }
  double RequestsPerSecond() const {
    return total.wall_seconds > 0 ? total.messages / total.wall_seconds : 0;
  }
};

// What one run gave.
struct Measured {
  RunResult run;
  OtherProcessFigures before;  // the server's, as the run's window opened
  OtherProcessFigures after;   // and as it closed
};

absl::Status StartOurs(const Programs& programs, int max_threads, Pair* pair) {
  const Setup client_setup = ClientSetupFor(pair->setup);
  std::vector<std::string> argv = {programs.servers.e2e_bench, "--role=client"};
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

// The cell's request in a file for h2load, and one call alone to learn the
// reply's size (and that the server answers at all).
absl::Status StartH2load(const Programs& programs, const Cell& cell,
                         Pair* pair) {
  H2loadTarget& target = pair->h2load.target;
  target.h2load = programs.h2load;
  target.server = pair->setup.name;
  target.port = pair->server->port();
  target.request = MakeH2loadRequest(cell.kind, cell.size, pair->setup.gzip);
  const std::string stem =
      absl::StrCat(programs.scratch_dir, "/", pair->setup.name);
  target.request_file = stem + ".request";
  target.log_file = stem + ".log";
  std::ofstream file(target.request_file, std::ios::binary | std::ios::trunc);
  file << target.request.frame;
  if (!file.flush()) {
    return absl::InternalError("could not write " + target.request_file);
  }
  absl::StatusOr<size_t> reply_frame = ProbeReplyFrame(target);
  if (!reply_frame.ok()) {
    absl::StatusOr<OtherProcessFigures> alive = pair->server->Figures();
    return alive.ok() ? reply_frame.status() : alive.status();
  }
  pair->h2load.reply_frame = *reply_frame;
  return absl::OkStatus();
}

absl::Status StartPair(const Programs& programs, const Cell& cell,
                       int max_threads, Pair* pair) {
  absl::StatusOr<std::unique_ptr<ServerProcess>> server =
      ServerProcess::Start(pair->setup, programs.servers);
  if (!server.ok()) return server.status();
  pair->server = *std::move(server);
  return pair->kind == ClientKind::kOurs
             ? StartOurs(programs, max_threads, pair)
             : StartH2load(programs, cell, pair);
}

// One run of our client; a failed call fails it, naming the server.
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

// One measured run of our client, after a warm-up where the mode asks for
// one; the server's figures are read around the run.
absl::StatusOr<Measured> MeasureOurs(Pair& pair, const Cell& cell,
                                     const Mode& mode, bool new_pair) {
  if (mode.fresh || new_pair) {
    absl::StatusOr<RunResult> warm = ClientRun(pair, cell, mode.warmup_ms);
    if (!warm.ok()) {
      absl::StatusOr<OtherProcessFigures> alive = pair.server->Figures();
      return alive.ok() ? warm.status() : alive.status();
    }
  }
  Measured measured;
  absl::StatusOr<OtherProcessFigures> before = pair.server->Figures();
  if (!before.ok()) return before.status();
  absl::StatusOr<RunResult> run = ClientRun(pair, cell, mode.budget_ms);
  absl::StatusOr<OtherProcessFigures> after = pair.server->Figures();
  if (!after.ok()) return after.status();  // it died: say so first
  if (!run.ok()) return run.status();
  return Measured{*std::move(run), *before, *after};
}

// One run of h2load, which warms its new connections up itself; the
// server's figures are read as h2load's measured window opens and closes.
absl::StatusOr<Measured> MeasureH2load(Pair& pair, const Mode& mode) {
  std::vector<OtherProcessFigures> edges;
  absl::StatusOr<RunResult> run = RunH2load(
      pair.h2load.target, pair.h2load.reply_frame,
      absl::Milliseconds(mode.h2load_warmup_ms),
      absl::Milliseconds(mode.budget_ms), [&]() -> absl::Status {
        absl::StatusOr<OtherProcessFigures> figures = pair.server->Figures();
        if (!figures.ok()) return figures.status();
        edges.push_back(*figures);
        return absl::OkStatus();
      });
  if (!run.ok()) {
    absl::StatusOr<OtherProcessFigures> alive = pair.server->Figures();
    return alive.ok() ? run.status() : alive.status();
  }
  return Measured{*std::move(run), edges.front(), edges.back()};
}

// Every pair on one cell, `reps` times, rotating which goes first.
absl::Status RunCell(const Programs& programs, const Mode& mode,
                     const std::string& kind, size_t size, int reps,
                     int max_threads, const std::vector<Pair*>& pairs,
                     std::vector<Row>* rows) {
  const Cell cell{Rpc::kUnary, mode.threads, *payloads::ParseKind(kind), size};
  echo::EchoResponse response;
  response.set_payload(payloads::Make(cell.kind, size));
  const int count = static_cast<int>(pairs.size());
  std::vector<Row> cell_rows(count);
  for (int i = 0; i < count; ++i) {
    const Pair& pair = *pairs[i];
    cell_rows[i].setup = pair.setup.name;
    cell_rows[i].client = pair.kind == ClientKind::kH2load ? "h2load"
                          : pair.setup.gzip                ? "cpp-default"
                                                           : "cpp-none";
    cell_rows[i].mode = mode.name;
    cell_rows[i].kind = kind;
    cell_rows[i].size = size;
    cell_rows[i].response_bytes = response.ByteSizeLong();
  }
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 0; k < count; ++k) {
      const int i = (rep + k) % count;
      Pair& pair = *pairs[i];
      Row& row = cell_rows[i];
      const bool new_pair = pair.server == nullptr;
      if (new_pair) {
        if (absl::Status started =
                StartPair(programs, cell, max_threads, &pair);
            !started.ok()) {
          return started;
        }
      }
      absl::StatusOr<Measured> measured =
          pair.kind == ClientKind::kOurs
              ? MeasureOurs(pair, cell, mode, new_pair)
              : MeasureH2load(pair, mode);
      if (!measured.ok()) return measured.status();
      if (mode.fresh) pair.Stop();
      Accumulate(measured->run, &row.total);
      row.server_cpu_seconds +=
          measured->after.cpu_seconds - measured->before.cpu_seconds;
      row.server_peak_rss_bytes =
          std::max(row.server_peak_rss_bytes, measured->after.peak_rss_bytes);
      row.reply_frame = pair.h2load.reply_frame;
      ++row.reps;
    }
  }
  for (Pair* pair : pairs) pair->Stop();  // the next cell starts afresh
  for (Row& row : cell_rows) rows->push_back(std::move(row));
  return absl::OkStatus();
}

void PrintCell(const std::vector<Row>& rows, size_t first) {
  const Row& head = rows[first];
  std::printf(
      "\n%s, %s, %zu bytes (client cpp-default: pooled-gzip's default "
      "sending gzip; h2load: zlib-6's request bytes)\n",
      head.mode, head.kind.c_str(), head.size);
  std::printf("%-12s %-11s %9s %9s %10s %14s %12s %10s\n", "server", "client",
              "p50 us", "p99 us", "req/s", "server CPU us", "peak RSS KiB",
              "wire B");
  for (size_t i = first; i < rows.size(); ++i) {
    const Row& row = rows[i];
    std::printf(
        "%-12s %-11s %9.1f %9.1f %10.0f %14.1f %12llu %10.0f\n",
        row.setup.c_str(), row.client.c_str(),
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

// A folder of its own for h2load's files, removed with it.
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code error;
    std::filesystem::path dir = std::filesystem::temp_directory_path(error);
    if (error) return;
    std::string name = (dir / "peers_bench.XXXXXX").string();
    if (mkdtemp(name.data()) != nullptr) path_ = name;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }  // empty if none

 private:
  std::string path_;
};

int Run() {
  std::vector<ClientKind> clients;
  for (const std::string& name : absl::GetFlag(FLAGS_clients)) {
    if (name == "ours") {
      clients.push_back(ClientKind::kOurs);
    } else if (name == "h2load") {
      clients.push_back(ClientKind::kH2load);
    } else {
      return Fail("--clients takes ours and h2load, not " + name);
    }
  }
  std::deque<Pair> pairs;  // stable addresses: modes list them
  for (ClientKind client : clients) {
    for (const std::string& name : absl::GetFlag(FLAGS_setups)) {
      absl::StatusOr<ServerSetup> setup = ParseServerSetup(name);
      if (!setup.ok()) return Fail(std::string(setup.status().message()));
      pairs.emplace_back();
      pairs.back().setup = *std::move(setup);
      pairs.back().kind = client;
    }
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
                       absl::GetFlag(FLAGS_warmup_ms), 0, true, false});
    } else if (name == "load") {
      modes.push_back({"load", load_threads,
                       absl::GetFlag(FLAGS_load_budget_ms),
                       absl::GetFlag(FLAGS_load_warmup_ms),
                       absl::GetFlag(FLAGS_h2load_warmup_ms), false, true});
    } else {
      return Fail("--modes takes single and load, not " + name);
    }
  }
  Programs programs;
  programs.servers = BuiltServerPrograms();
  if (const std::string go = absl::GetFlag(FLAGS_go_echo_server); !go.empty()) {
    programs.servers.go = {go, "--port=0"};
  }
  programs.h2load = absl::GetFlag(FLAGS_h2load);
  const ScratchDir scratch;
  if (scratch.path().empty()) return Fail("could not make a temporary folder");
  programs.scratch_dir = scratch.path();
  const int reps = std::max(1, absl::GetFlag(FLAGS_reps));
  std::printf(
      "peers_bench: %zu servers and clients, unary echo, %d reps "
      "interleaved; each server and client in a process of its own\n",
      pairs.size(), reps);
  std::vector<Row> rows;
  for (const Mode& mode : modes) {
    std::vector<Pair*> taking_part;
    for (Pair& pair : pairs) {
      if (pair.kind == ClientKind::kOurs || mode.h2load) {
        taking_part.push_back(&pair);
      }
    }
    if (taking_part.empty()) continue;
    for (size_t size : sizes) {
      for (const std::string& kind : kinds) {
        const size_t first = rows.size();
        if (absl::Status status = RunCell(programs, mode, kind, size, reps,
                                          load_threads, taking_part, &rows);
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
