// Example echo client. One run in one mode:
//
//   echo_client --target=127.0.0.1:50051 --mode=pooled --compression=gzip \
//               --rpc=bidi --size=1024 --count=1000
//
// or, with --compare, the same load interleaved over three setups, each
// against its own server: no compression and stock gzip (--stock_target, a
// server started with --mode=stock) and pooled gzip (--target, a server
// started with --mode=pooled); it prints what pooling saved.

#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server address");
ABSL_FLAG(std::string, mode, "pooled", "pooled | stock");
ABSL_FLAG(std::string, compression, "gzip", "gzip | deflate | none");
ABSL_FLAG(int, level, -1, "zlib level for pooled compression, -1..9");
ABSL_FLAG(int, size, 1024, "payload bytes per message");
ABSL_FLAG(int, count, 1000, "messages to send");
ABSL_FLAG(std::string, rpc, "bidi",
          "unary | bidi | client_stream | server_stream");
ABSL_FLAG(bool, compare, false,
          "compare none, stock gzip and pooled gzip (needs --stock_target)");
ABSL_FLAG(std::string, stock_target, "127.0.0.1:50052",
          "--compare: a server started with --mode=stock");
ABSL_FLAG(std::string, sizes, "1,1024,65536", "--compare: payload sizes");
ABSL_FLAG(int, rounds, 3, "--compare: interleaved rounds per setup");

namespace pooled_gzip::echo {
namespace {

std::string SizeLabel(size_t size) {
  if (size >= 1024 * 1024 && size % (1024 * 1024) == 0) {
    return absl::StrFormat("%d MiB", size / (1024 * 1024));
  }
  if (size >= 1024 && size % 1024 == 0) {
    return absl::StrFormat("%d KiB", size / 1024);
  }
  return absl::StrFormat("%d B", size);
}

// What one message weighs on the wire, computed by compressing a request
// with the settings gRPC core and the plugin both use.
size_t WireBytes(size_t size, grpc_compression_algorithm algorithm, int level) {
  EchoRequest request;
  request.set_payload(MakePayload(size, 0));
  const std::string serialized = request.SerializeAsString();
  if (algorithm == GRPC_COMPRESS_NONE) return serialized.size();
  std::string compressed;
  const Format format =
      algorithm == GRPC_COMPRESS_GZIP ? Format::kGzip : Format::kZlib;
  if (!CompressToString(serialized, {format, level}, &compressed).ok()) {
    return 0;
  }
  return compressed.size();
}

LoadOptions LoadFromFlags(Rpc rpc, size_t size, int count,
                          grpc_compression_algorithm algorithm) {
  LoadOptions options;
  options.rpc = rpc;
  options.size = size;
  options.count = count;
  options.response_algorithm = algorithm;
  return options;
}

int RunOnce(Mode mode, Rpc rpc, grpc_compression_algorithm algorithm) {
  const size_t size = absl::GetFlag(FLAGS_size);
  const int level = absl::GetFlag(FLAGS_level);
  auto stub = Echo::NewStub(
      MakeChannel(absl::GetFlag(FLAGS_target), mode, algorithm, level));
  LoadResult result =
      RunLoad(stub.get(),
              LoadFromFlags(rpc, size, absl::GetFlag(FLAGS_count), algorithm));
  const size_t before = EchoRequest().ByteSizeLong() + size + 4;
  const size_t after = WireBytes(size, algorithm, level);
  std::printf("echo_client: mode=%s rpc=%s compression=%s size=%s\n",
              absl::GetFlag(FLAGS_mode).c_str(), RpcName(rpc),
              absl::GetFlag(FLAGS_compression).c_str(),
              SizeLabel(size).c_str());
  std::printf(
      "  messages:  %d echoed, %d mismatched, status %s\n", result.messages,
      result.mismatches,
      result.status.ok() ? "OK" : result.status.error_message().c_str());
  std::printf("  bytes:     ~%zu per message before compression, %zu after\n",
              before, after);
  std::printf("  latency:   p50 %.1f us, p99 %.1f us, %.0f messages/s\n",
              Quantile(&result.latencies_us, 0.5),
              Quantile(&result.latencies_us, 0.99),
              result.messages / std::max(result.seconds, 1e-9));
  std::printf("  pool:      %s\n", ToString(GetPoolStats()).c_str());
  return result.status.ok() && result.mismatches == 0 ? 0 : 1;
}

struct Setup {
  const char* name;
  Mode mode;
  grpc_compression_algorithm algorithm;
  std::string target;
};

int RunCompare(Rpc rpc, grpc_compression_algorithm algorithm) {
  const int level = absl::GetFlag(FLAGS_level);
  const int rounds = std::max(1, absl::GetFlag(FLAGS_rounds));
  const int per_round = std::max(1, absl::GetFlag(FLAGS_count) / rounds);
  const std::string stock_target = absl::GetFlag(FLAGS_stock_target);
  const std::vector<Setup> setups = {
      {"none", Mode::kStock, GRPC_COMPRESS_NONE, stock_target},
      {"stock gzip", Mode::kStock, algorithm, stock_target},
      {"pooled gzip", Mode::kPooled, algorithm, absl::GetFlag(FLAGS_target)},
  };
  std::vector<std::unique_ptr<Echo::Stub>> stubs;
  for (const Setup& setup : setups) {
    stubs.push_back(Echo::NewStub(
        MakeChannel(setup.target, setup.mode, setup.algorithm, level)));
  }
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

  std::printf(
      "Echo over %s RPCs on loopback, %d rounds interleaved, %d messages per "
      "setup and size\n\n",
      RpcName(rpc), rounds, per_round * rounds);
  std::printf("| size | setup | wire bytes/msg | p50 us | p99 us | msgs/s |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  std::map<std::pair<size_t, int>, double> p50;
  int failures = 0;
  for (size_t size : sizes) {
    std::vector<LoadResult> totals(setups.size());
    for (int round = 0; round < rounds; ++round) {
      for (size_t s = 0; s < setups.size(); ++s) {
        LoadResult result =
            RunLoad(stubs[s].get(),
                    LoadFromFlags(rpc, size, per_round, setups[s].algorithm));
        if (!result.status.ok() || result.mismatches != 0) ++failures;
        totals[s].messages += result.messages;
        totals[s].seconds += result.seconds;
        totals[s].latencies_us.insert(totals[s].latencies_us.end(),
                                      result.latencies_us.begin(),
                                      result.latencies_us.end());
      }
    }
    for (size_t s = 0; s < setups.size(); ++s) {
      p50[{size, s}] = Quantile(&totals[s].latencies_us, 0.5);
      std::printf("| %s | %s | %zu | %.1f | %.1f | %.0f |\n",
                  SizeLabel(size).c_str(), setups[s].name,
                  WireBytes(size, setups[s].algorithm, level), p50[{size, s}],
                  Quantile(&totals[s].latencies_us, 0.99),
                  totals[s].messages / std::max(totals[s].seconds, 1e-9));
    }
  }
  std::printf("\nWhat pooled-gzip saved (median round trip):\n");
  for (size_t size : sizes) {
    const double none = p50[{size, 0}];
    const double stock = p50[{size, 1}];
    const double pooled = p50[{size, 2}];
    std::printf(
        "  %-7s %.1fx faster than stock gzip (%.0f us -> %.0f us per "
        "message), %.2fx the time of no compression\n",
        SizeLabel(size).c_str(), stock / pooled, stock, pooled, pooled / none);
  }
  std::printf("\nClient pool: %s\n", ToString(GetPoolStats()).c_str());
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
  return absl::GetFlag(FLAGS_compare) ? RunCompare(rpc, algorithm)
                                      : RunOnce(mode, rpc, algorithm);
}
