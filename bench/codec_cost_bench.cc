// What the codec's own bookkeeping and its skip options cost, next to the
// work they time or save, through the core codec's entry point (slices in,
// slices out, plain when not compressed, as gRPC sees it):
//
//   clock/overhead               the two clock reads and counter updates
//                                every message pays for codec time
//   clock/<kind>/<size>/<setup>  one message compressed, for scale
//   judge/<kind>/<size>          the skip decision alone
//   skip/<kind>/<size>/<on|off>  one message with Options::skip_incompressible
//                                on and off, default backend and level
//
// Each reports output_bytes (what goes on the wire) and, for skip, whether
// the message was skipped. Kinds are those of testing/payloads.h plus two
// of real compressed data: "gzfile", the machine's largest .gz files
// (/usr/share/doc), and "deflated", a gzip stream of prose.

#include <benchmark/benchmark.h>
#include <grpc/grpc.h>
#include <grpc/slice.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codec/compressibility.h"
#include "codec/traffic.h"
#include "message_codec.h"
#include "payloads.h"
#include "plain_zlib.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::bench {
namespace {

using payloads::Kind;

constexpr size_t kSizes[] = {1024, 65536, 1 << 20};

// The machine's largest gzip files, largest first, cut to `size`: real
// compressed data, the same on every run on one machine. One file whole
// where one is large enough; near-copies (packages share changelogs, which
// deflate would find repeated) are left out by their first 4 KiB.
std::string GzipFiles(size_t size) {
  std::vector<std::pair<uintmax_t, std::filesystem::path>> files;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator("/usr/share/doc", error)) {
    if (entry.is_regular_file(error) && entry.path().extension() == ".gz") {
      files.emplace_back(entry.file_size(error), entry.path());
    }
  }
  std::sort(files.begin(), files.end(), std::greater<>());
  std::string out;
  std::set<std::string> seen;
  for (const auto& [bytes, path] : files) {
    if (out.size() >= size) break;
    std::ifstream in(path, std::ios::binary);
    std::string file((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (seen.insert(file.substr(0, 4096)).second) out += file;
  }
  out.resize(std::min(out.size(), size));
  return out;
}

std::string MakePayload(const std::string& kind, size_t size) {
  if (kind == "gzfile") return GzipFiles(size);
  if (kind == "deflated") {
    std::string prose = payloads::Make(Kind::kProse, 4 * size);
    return plain_zlib::Deflate(prose, internal::Format::kGzip).substr(0, size);
  }
  return payloads::Make(*payloads::ParseKind(kind), size);
}

// Made once per kind and size: the skip, off and on, and the decision
// alone all run on it, and making some (a directory scan, a deflate of
// 4 MiB) costs more than the benchmarks.
const std::string& Payload(const std::string& kind, size_t size) {
  static auto* made = new std::map<std::pair<std::string, size_t>, std::string>;
  auto [it, inserted] = made->try_emplace({kind, size});
  if (inserted) it->second = MakePayload(kind, size);
  return it->second;
}

// One message through the core codec's compress, as gRPC calls it.
class CoreCompress {
 public:
  explicit CoreCompress(const std::string& payload) {
    grpc_slice_buffer_init(&input_);
    grpc_slice_buffer_add(
        &input_, grpc_slice_from_copied_buffer(payload.data(), payload.size()));
  }
  ~CoreCompress() { grpc_slice_buffer_destroy(&input_); }

  // Wire bytes; `compressed` whether it went out compressed.
  size_t Run(bool* compressed) {
    grpc_slice_buffer output;
    grpc_slice_buffer_init(&output);
    *compressed = grpc_msg_compress(GRPC_COMPRESS_GZIP, &input_, &output) == 1;
    const size_t bytes = output.length;
    grpc_slice_buffer_destroy(&output);
    return bytes;
  }

 private:
  grpc_slice_buffer input_;
};

void Configured(benchmark::State& state, const Options& options) {
  if (!Configure(options).ok()) state.SkipWithError("Configure failed");
}

void BM_ClockOverhead(benchmark::State& state) {
  std::atomic<uint64_t> nanoseconds{0};
  std::atomic<uint64_t> messages{0};
  for (auto _ : state) {
    const internal::CodecTimer timer;
    messages.fetch_add(1, std::memory_order_relaxed);
    nanoseconds.fetch_add(timer.ElapsedNanoseconds(),
                          std::memory_order_relaxed);
  }
  benchmark::DoNotOptimize(nanoseconds.load());
}

// The skip decision alone.
void BM_Judge(benchmark::State& state, std::string kind, size_t size) {
  const std::string& payload = Payload(kind, size);
  const absl::string_view input = payload;
  bool incompressible = false;
  for (auto _ : state) {
    incompressible = internal::LooksIncompressible({&input, 1});
    benchmark::DoNotOptimize(incompressible);
  }
  state.counters["incompressible"] = incompressible ? 1 : 0;
}

void BM_Compress(benchmark::State& state, std::string kind, size_t size,
                 Options options) {
  Configured(state, options);
  CoreCompress op(Payload(kind, size));
  bool compressed = false;
  size_t bytes = op.Run(&compressed);  // a warm pool
  for (auto _ : state) bytes = op.Run(&compressed);
  state.counters["output_bytes"] = static_cast<double>(bytes);
  state.counters["compressed"] = compressed ? 1 : 0;
  state.counters["input_bytes"] = static_cast<double>(size);
}

void RegisterAll() {
  benchmark::RegisterBenchmark("clock/overhead", BM_ClockOverhead)
      ->Unit(benchmark::kNanosecond);
  // The cheapest messages the codec times: one byte (declined before a
  // context, too short for any stream) and a KiB with the fastest backend
  // and with the default.
  Options isal;
  isal.backend = Backend::kIsal;
  for (const auto& [size, name, options] :
       {std::make_tuple(size_t{1}, "default", Options()),
        std::make_tuple(size_t{1024}, "default", Options()),
        std::make_tuple(size_t{1024}, "isal-1", isal)}) {
    benchmark::RegisterBenchmark(
        ("clock/proto/" + std::to_string(size) + "/" + name).c_str(),
        BM_Compress, "proto", size, options)
        ->Unit(benchmark::kMicrosecond);
  }
  std::vector<std::string> kinds;
  for (Kind kind : payloads::AllKinds())
    kinds.push_back(payloads::KindName(kind));
  kinds.push_back("gzfile");
  kinds.push_back("deflated");
  for (const std::string& kind : kinds) {
    for (size_t size : kSizes) {
      benchmark::RegisterBenchmark(
          ("judge/" + kind + "/" + std::to_string(size)).c_str(), BM_Judge,
          kind, size)
          ->Unit(benchmark::kNanosecond);
      for (bool skip : {false, true}) {
        Options options;
        options.skip_incompressible = skip;
        benchmark::RegisterBenchmark(
            ("skip/" + kind + "/" + std::to_string(size) + "/" +
             (skip ? "on" : "off"))
                .c_str(),
            BM_Compress, kind, size, options)
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

}  // namespace
}  // namespace pooled_gzip::bench

int main(int argc, char** argv) {
  grpc_init();
  // gRPC's own codec, served by the pools: without the core codec these
  // would time stock zlib.
  if (!pooled_gzip::InstallCoreCodec()) {
    std::fprintf(stderr, "codec_cost_bench: the core codec is not active\n");
    return 1;
  }
  pooled_gzip::bench::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  grpc_shutdown();
  return 0;
}
