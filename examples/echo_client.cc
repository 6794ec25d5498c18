// Example echo client. One run in one mode:
//
//   echo_client --target=127.0.0.1:50051 --mode=pooled --compression=gzip
//               --rpc=bidi --size=1024 --count=1000 --payload=json
//               [--backend=libdeflate --level=6] [--output=json]
//
// or, with --compare, the same load interleaved over three setups, each
// against its own server: no compression and stock gzip (--stock_target, a
// server started with --mode=stock) and pooled gzip (--target, a server
// started with --mode=pooled); it prints what pooling saved. Each setup's
// client runs in a process of its own (this program again, with
// --output=json): pooled-gzip's core codec serves every gzip message of a
// process once a pooled channel exists there, so a stock client is only
// stock in a process without one.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "payloads.h"
#include "pooled_gzip/pooled_gzip.h"

extern char** environ;

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server address");
ABSL_FLAG(std::string, mode, "pooled", "pooled | stock");
ABSL_FLAG(std::string, compression, "gzip", "gzip | deflate | none");
ABSL_FLAG(std::string, backend, "",
          "pooled mode: deflate backend, zlib | libdeflate | isal (empty: "
          "the library's default)");
ABSL_FLAG(int, level, -1,
          "pooled mode: the backend's level (zlib 0-9, libdeflate 0-12, "
          "isal 0-3); -1: its default");
ABSL_FLAG(int, size, 1024, "payload bytes per message");
ABSL_FLAG(std::string, payload, "words",
          "payload kind: words | text | proto | json | source | random");
ABSL_FLAG(int, count, 1000, "messages to send");
ABSL_FLAG(int, warmup, 0, "messages sent first, not measured");
ABSL_FLAG(std::string, rpc, "bidi",
          "unary | bidi | client_stream | server_stream");
ABSL_FLAG(std::string, output, "text",
          "text | json (one line: counts, status, every latency)");
ABSL_FLAG(bool, compare, false,
          "compare none, stock gzip and pooled gzip (needs --stock_target)");
ABSL_FLAG(std::string, stock_target, "127.0.0.1:50052",
          "--compare: a server started with --mode=stock");
ABSL_FLAG(std::string, sizes, "1,1024,65536", "--compare: payload sizes");
ABSL_FLAG(int, rounds, 3, "--compare: interleaved rounds per setup");
ABSL_FLAG(int, large_count, 300,
          "--compare: messages per setup for sizes of 64 KiB and up (at "
          "most --count), which take milliseconds each");

namespace pooled_gzip::echo {
namespace {

using payloads::SizeLabel;

constexpr size_t kLargeSize = 64 * 1024;

std::string SerializedRequest(payloads::Kind kind, size_t size) {
  EchoRequest request;
  request.set_payload(payloads::Make(kind, size, 0));
  return request.SerializeAsString();
}

// What one message weighs on the wire (without gRPC's 5-byte prefix):
// compressed with the process's codec settings if that makes it smaller,
// else as it is, which is gRPC core's rule and the core codec's.
size_t WireBytes(const std::string& serialized,
                 grpc_compression_algorithm algorithm) {
  if (algorithm == GRPC_COMPRESS_NONE) return serialized.size();
  grpc::ByteBuffer compressed;
  if (!EncodeBytes(serialized, algorithm, &compressed).ok()) return 0;
  return std::min(compressed.Length(), serialized.size());
}

// The same for stock gRPC: zlib at level 6, which the zlib backend at its
// default level reproduces byte for byte. Changes this process's codec
// settings for the time of the call.
size_t StockWireBytes(const std::string& serialized,
                      grpc_compression_algorithm algorithm) {
  const Options saved = GetOptions();
  Options zlib;
  zlib.backend = Backend::kZlib;
  if (!Configure(zlib).ok()) return 0;
  const size_t bytes = WireBytes(serialized, algorithm);
  Configure(saved).IgnoreError();
  return bytes;
}

LoadOptions LoadFromFlags(payloads::Kind kind, Rpc rpc, size_t size, int count,
                          grpc_compression_algorithm algorithm) {
  LoadOptions options;
  options.payload = kind;
  options.rpc = rpc;
  options.size = size;
  options.count = count;
  options.response_algorithm = algorithm;
  return options;
}

void PrintJson(const LoadResult& result, Mode mode) {
  std::string line =
      absl::StrCat("{\"mode\": \"", mode == Mode::kPooled ? "pooled" : "stock",
                   "\", \"messages\": ", result.messages,
                   ", \"mismatches\": ", result.mismatches,
                   ", \"ok\": ", result.status.ok() ? "true" : "false",
                   ", \"seconds\": ", result.seconds,
                   ", \"core_codec\": ", CoreCodecActive() ? "true" : "false",
                   ", \"latencies_us\": [");
  for (size_t i = 0; i < result.latencies_us.size(); ++i) {
    absl::StrAppend(&line, i == 0 ? "" : ",", result.latencies_us[i]);
  }
  line += "]}";
  std::printf("%s\n", line.c_str());
}

int RunOnce(payloads::Kind kind, Mode mode, Rpc rpc,
            grpc_compression_algorithm algorithm) {
  const size_t size = absl::GetFlag(FLAGS_size);
  if (mode == Mode::kPooled) {
    const absl::Status configured = ConfigureFromFlags(
        absl::GetFlag(FLAGS_backend), absl::GetFlag(FLAGS_level));
    if (!configured.ok()) {
      std::cerr << configured.message() << "\n";
      return 2;
    }
  }
  auto stub =
      Echo::NewStub(MakeChannel(absl::GetFlag(FLAGS_target), mode, algorithm));
  // Connection, stream and pool set-up happen in the warm-up.
  if (const int warmup = absl::GetFlag(FLAGS_warmup); warmup > 0) {
    RunLoad(stub.get(), LoadFromFlags(kind, rpc, size, warmup, algorithm));
  }
  LoadResult result = RunLoad(
      stub.get(),
      LoadFromFlags(kind, rpc, size, absl::GetFlag(FLAGS_count), algorithm));
  const int exit_code = result.status.ok() && result.mismatches == 0 ? 0 : 1;
  if (absl::GetFlag(FLAGS_output) == "json") {
    PrintJson(result, mode);
    return exit_code;
  }
  // Before StockWireBytes, which uses the pool of this process, and
  // WireBytes, which compresses once more.
  const std::string pool = ToString(GetPoolStats());
  const std::vector<std::string> traffic = TrafficLines();
  const std::string serialized = SerializedRequest(kind, size);
  const size_t after = mode == Mode::kPooled
                           ? WireBytes(serialized, algorithm)
                           : StockWireBytes(serialized, algorithm);
  std::printf("echo_client: mode=%s rpc=%s compression=%s size=%s payload=%s\n",
              absl::GetFlag(FLAGS_mode).c_str(), RpcName(rpc),
              absl::GetFlag(FLAGS_compression).c_str(), SizeLabel(size).c_str(),
              payloads::KindName(kind));
  std::printf(
      "  messages:  %d echoed, %d mismatched, status %s\n", result.messages,
      result.mismatches,
      result.status.ok() ? "OK" : result.status.error_message().c_str());
  std::printf("  bytes:     %zu per message before compression, %zu after\n",
              serialized.size(), after);
  std::printf("  latency:   p50 %.1f us, p99 %.1f us, %.0f messages/s\n",
              Quantile(&result.latencies_us, 0.5),
              Quantile(&result.latencies_us, 0.99),
              result.messages / std::max(result.seconds, 1e-9));
  if (mode == Mode::kPooled) {
    std::printf("  backend:   %s\n", CodecDescription().c_str());
  }
  std::printf("  pool:      %s\n", pool.c_str());
  for (const std::string& line : traffic) {
    std::printf("  traffic:   %s\n", line.c_str());
  }
  std::printf("  core codec %s\n", CoreCodecActive() ? "active" : "not active");
  return exit_code;
}

// --- --compare: one client process per setup, size and round ---

struct Setup {
  const char* name;
  Mode mode;
  grpc_compression_algorithm algorithm;
  std::string target;
};

// What a child run printed with --output=json.
struct ChildResult {
  bool ok = false;
  int messages = 0;
  double seconds = 0;
  bool core_codec = false;
  std::vector<double> latencies_us;
  std::string problem;  // set when !ok
};

// The text after "\"key\": " in a one-line JSON object.
std::optional<absl::string_view> JsonValue(absl::string_view json,
                                           absl::string_view key) {
  const std::string marker = absl::StrCat("\"", key, "\": ");
  const size_t at = json.find(marker);
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view value = json.substr(at + marker.size());
  return value.substr(0, value.find_first_of(",}"));
}

bool ParseChildJson(const std::string& json, ChildResult* result) {
  const auto messages = JsonValue(json, "messages");
  const auto mismatches = JsonValue(json, "mismatches");
  const auto ok = JsonValue(json, "ok");
  const auto seconds = JsonValue(json, "seconds");
  const auto core_codec = JsonValue(json, "core_codec");
  const size_t list = json.find("\"latencies_us\": [");
  int mismatch_count = 0;
  if (!messages || !mismatches || !ok || !seconds || !core_codec ||
      list == std::string::npos ||
      !absl::SimpleAtoi(*messages, &result->messages) ||
      !absl::SimpleAtoi(*mismatches, &mismatch_count) ||
      !absl::SimpleAtod(*seconds, &result->seconds)) {
    result->problem = "unreadable output: " + json.substr(0, 200);
    return false;
  }
  result->core_codec = *core_codec == "true";
  const size_t begin = list + std::strlen("\"latencies_us\": [");
  const size_t end = json.find(']', begin);
  for (absl::string_view item :
       absl::StrSplit(absl::string_view(json).substr(begin, end - begin), ',',
                      absl::SkipEmpty())) {
    double value = 0;
    if (absl::SimpleAtod(item, &value)) result->latencies_us.push_back(value);
  }
  if (*ok != "true" || mismatch_count != 0) {
    result->problem =
        absl::StrCat("the run failed (", mismatch_count, " mismatched echoes)");
    return false;
  }
  result->ok = true;
  return true;
}

std::string SelfPath() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : "/proc/self/exe";
}

// Runs this program with `args` and returns what it printed on stdout.
bool RunChild(const std::vector<std::string>& args, std::string* out,
              std::string* problem) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    *problem = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  std::vector<char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc =
      posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (rc != 0) {
    close(pipe_fds[0]);
    *problem = "cannot run " + args[0] + ": " + std::strerror(rc);
    return false;
  }
  char buffer[1 << 16];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof(buffer))) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out->append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
    *problem = "the client process failed";
    return false;
  }
  return true;
}

ChildResult RunSetup(const Setup& setup, payloads::Kind kind, Rpc rpc,
                     size_t size, int count) {
  std::vector<std::string> args = {
      SelfPath(), "--target=" + setup.target,
      std::string("--mode=") +
          (setup.mode == Mode::kPooled ? "pooled" : "stock"),
      std::string("--compression=") + (setup.algorithm == GRPC_COMPRESS_NONE
                                           ? "none"
                                           : absl::GetFlag(FLAGS_compression)),
      std::string("--rpc=") + RpcName(rpc),
      std::string("--payload=") + payloads::KindName(kind),
      absl::StrCat("--size=", size), absl::StrCat("--count=", count),
      // Connects and opens the pool before the measured messages.
      absl::StrCat("--warmup=", std::clamp(count / 10, 2, 20)),
      "--output=json"};
  if (setup.mode == Mode::kPooled) {
    args.push_back("--backend=" + absl::GetFlag(FLAGS_backend));
    args.push_back(absl::StrCat("--level=", absl::GetFlag(FLAGS_level)));
  }
  ChildResult result;
  std::string out;
  if (!RunChild(args, &out, &result.problem)) return result;
  ParseChildJson(out.substr(0, out.find('\n')), &result);
  // Stock must be stock: no pooled-gzip codec in its process.
  const bool want_codec = setup.mode == Mode::kPooled;
  if (result.ok && result.core_codec != want_codec) {
    result.ok = false;
    result.problem = want_codec ? "the core codec was not active"
                                : "the core codec was active in a stock client";
  }
  return result;
}

int RunCompare(payloads::Kind kind, Rpc rpc,
               grpc_compression_algorithm algorithm) {
  const int rounds = std::max(1, absl::GetFlag(FLAGS_rounds));
  const int count = std::max(1, absl::GetFlag(FLAGS_count));
  const int large_count =
      std::clamp(absl::GetFlag(FLAGS_large_count), 1, count);
  const std::string stock_target = absl::GetFlag(FLAGS_stock_target);
  const std::vector<Setup> setups = {
      {"none", Mode::kStock, GRPC_COMPRESS_NONE, stock_target},
      {"stock gzip", Mode::kStock, algorithm, stock_target},
      {"pooled gzip", Mode::kPooled, algorithm, absl::GetFlag(FLAGS_target)},
  };
  std::vector<size_t> sizes;
  for (absl::string_view item :
       absl::StrSplit(absl::GetFlag(FLAGS_sizes), ',')) {
    size_t size;
    if (!absl::SimpleAtoi(item, &size)) {
      std::cerr << "bad --sizes item: " << item << "\n";
      return 2;
    }
    sizes.push_back(size);
  }
  // This process runs no gRPC; its codec settings only compute the pooled
  // setup's wire bytes, as the pooled client's process compresses them.
  const absl::Status configured = ConfigureFromFlags(
      absl::GetFlag(FLAGS_backend), absl::GetFlag(FLAGS_level));
  if (!configured.ok()) {
    std::cerr << configured.message() << "\n";
    return 2;
  }

  std::printf(
      "Echo of %s payloads over %s RPCs on loopback, %d rounds interleaved, "
      "%d messages per setup and size (%d from %s up), each setup's client "
      "in a process of its own; pooled gzip: %s\n\n",
      payloads::KindName(kind), RpcName(rpc), rounds, (count / rounds) * rounds,
      (large_count / rounds) * rounds, SizeLabel(kLargeSize).c_str(),
      CodecDescription().c_str());
  std::printf("| size | setup | wire bytes/msg | p50 us | p99 us | msgs/s |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  std::map<std::pair<size_t, int>, double> p50;
  int failures = 0;
  for (size_t size : sizes) {
    const int per_round =
        std::max(1, (size >= kLargeSize ? large_count : count) / rounds);
    std::vector<ChildResult> totals(setups.size());
    for (int round = 0; round < rounds; ++round) {
      // Which setup goes first rotates, so none always follows another.
      for (size_t k = 0; k < setups.size(); ++k) {
        const size_t s = (round + k) % setups.size();
        ChildResult result = RunSetup(setups[s], kind, rpc, size, per_round);
        if (!result.ok) {
          ++failures;
          std::fprintf(stderr, "%s, %s: %s\n", setups[s].name,
                       SizeLabel(size).c_str(), result.problem.c_str());
        }
        totals[s].messages += result.messages;
        totals[s].seconds += result.seconds;
        totals[s].latencies_us.insert(totals[s].latencies_us.end(),
                                      result.latencies_us.begin(),
                                      result.latencies_us.end());
      }
    }
    const std::string serialized = SerializedRequest(kind, size);
    for (size_t s = 0; s < setups.size(); ++s) {
      const size_t wire = setups[s].mode == Mode::kPooled
                              ? WireBytes(serialized, setups[s].algorithm)
                              : StockWireBytes(serialized, setups[s].algorithm);
      p50[{size, s}] = Quantile(&totals[s].latencies_us, 0.5);
      std::printf("| %s | %s | %zu | %.1f | %.1f | %.0f |\n",
                  SizeLabel(size).c_str(), setups[s].name, wire, p50[{size, s}],
                  Quantile(&totals[s].latencies_us, 0.99),
                  totals[s].messages / std::max(totals[s].seconds, 1e-9));
    }
    std::fflush(stdout);
  }
  std::printf("\nWhat pooled-gzip saved (median round trip):\n");
  for (size_t size : sizes) {
    const double none = p50[{size, 0}];
    const double stock = p50[{size, 1}];
    const double pooled = p50[{size, 2}];
    if (none <= 0 || stock <= 0 || pooled <= 0) continue;
    std::printf(
        "  %-7s %.1fx faster than stock gzip (%.0f us -> %.0f us per "
        "message), %.2fx the time of no compression\n",
        SizeLabel(size).c_str(), stock / pooled, stock, pooled, pooled / none);
  }
  if (failures != 0) std::printf("FAILED: %d runs had errors\n", failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace pooled_gzip::echo

int main(int argc, char** argv) {
  using namespace pooled_gzip::echo;  // NOLINT: a short main
  absl::ParseCommandLine(argc, argv);
  Mode mode;
  Rpc rpc;
  grpc_compression_algorithm algorithm;
  if (!ParseMode(absl::GetFlag(FLAGS_mode), &mode)) {
    std::cerr << "--mode must be pooled or stock\n";
    return 2;
  }
  if (!ParseRpc(absl::GetFlag(FLAGS_rpc), &rpc)) {
    std::cerr << "--rpc must be unary, bidi, client_stream or server_stream\n";
    return 2;
  }
  if (!ParseAlgorithm(absl::GetFlag(FLAGS_compression), &algorithm)) {
    std::cerr << "--compression must be gzip, deflate or none\n";
    return 2;
  }
  const std::string output = absl::GetFlag(FLAGS_output);
  if (output != "text" && output != "json") {
    std::cerr << "--output must be text or json\n";
    return 2;
  }
  const std::optional<pooled_gzip::payloads::Kind> kind =
      pooled_gzip::payloads::ParseKind(absl::GetFlag(FLAGS_payload));
  if (!kind) {
    std::cerr << "--payload must be words, text, proto, json, source or "
                 "random\n";
    return 2;
  }
  return absl::GetFlag(FLAGS_compare) ? RunCompare(*kind, rpc, algorithm)
                                      : RunOnce(*kind, mode, rpc, algorithm);
}
