// Codec micro-benchmarks: gRPC core's per-message zlib stream against the
// pooled codec of every backend, at several levels, per payload kind and
// size, for compress and decompress.
//
// Names are "<op>/<kind>/<size in bytes>/<impl>": impl is "stock" (a
// replica of core's path) or, compressing, "<backend>-<level>" (zlib-6,
// libdeflate-5, isal-1, ...), decompressing, the backend ("zlib",
// "libdeflate", "isal"). Decompress input is what a stock peer sends: core's
// zlib-6 gzip of the payload; for "<backend>-own", what a peer of the same
// backend sends: its default level's gzip.
//
// Besides time per op and bytes/s, each benchmark reports heap traffic per
// op from the malloc interposer linked into this binary, how much of it was
// zlib state, the output size, and the heap one pooled context of that
// backend and level holds (what the pool keeps per thread and kind).
//
// Payload kinds are all of examples/payloads.h unless --payloads=<kind>,...
// names fewer.

#include <benchmark/benchmark.h>
#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "alloc_counter.h"
#include "codec/backend.h"
#include "codec/codec.h"
#include "codec_paths.h"
#include "payloads.h"

namespace pooled_gzip::bench {
namespace {

using pooled_gzip::internal::CompressOptions;
using pooled_gzip::internal::CompressToString;
using pooled_gzip::internal::DecompressToString;
using pooled_gzip::internal::Format;
using pooled_gzip::internal::StringSink;

enum class Op { kCompress, kDecompress };

const char* OpName(Op op) {
  return op == Op::kCompress ? "compress" : "decompress";
}

// One way of (de)compressing: core's path, or the pooled codec with a
// backend and, compressing, a level.
struct Impl {
  bool stock = false;
  Backend backend = Backend::kZlib;
  int level = kDefaultLevel;  // resolved; unused for decompression
  // Decompressing: the input is the backend's own gzip, not zlib-6's.
  bool own_input = false;
};

std::string ImplName(Op op, const Impl& impl) {
  if (impl.stock) return "stock";
  const std::string backend(pooled_gzip::BackendName(impl.backend));
  if (op == Op::kCompress) return absl::StrCat(backend, "-", impl.level);
  return impl.own_input ? absl::StrCat(backend, "-own") : backend;
}

// The levels measured: zlib's fastest, core's and smallest; libdeflate's
// around zlib-6's ratio, where the default's choice lies, and its ends
// short of 10-12 (much slower and far larger per context; README,
// "Levels"); every ISA-L level.
std::vector<Impl> CompressImpls() {
  std::vector<Impl> impls = {{true}};
  for (int level : {1, 6, 9}) impls.push_back({false, Backend::kZlib, level});
  for (int level : {1, 4, 5, 6, 7, 9}) {
    impls.push_back({false, Backend::kLibdeflate, level});
  }
  for (int level : {0, 1, 2, 3})
    impls.push_back({false, Backend::kIsal, level});
  return impls;
}

std::vector<Impl> DecompressImpls() {
  return {{true},
          {false, Backend::kZlib},
          {false, Backend::kLibdeflate},
          {false, Backend::kIsal},
          {false, Backend::kLibdeflate, kDefaultLevel, true},
          {false, Backend::kIsal, kDefaultLevel, true}};
}

// Minor page faults of the calling thread so far. Stock's cost for small
// messages is mostly page faults: glibc trims the freed 256 KiB of zlib
// state off the heap top and faults it back in on the next message. Whether
// that happens depends on where the state lands in the heap, so the count is
// reported next to the time.
uint64_t ThreadMinorFaults() {
  rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<uint64_t>(usage.ru_minflt);
}

// One message through one path. Everything a message costs in gRPC is
// inside: the output buffer is built and released every time.
class CodecOp {
 public:
  CodecOp(Op op, const Impl& impl, grpc_slice_buffer* input)
      : op_(op), impl_(impl), input_(input) {
    options_.backend = impl.backend;
    options_.level = impl.level;
  }

  // Returns the bytes produced (wire bytes for compress), or -1 on error.
  // `result` receives them, flattened, when not null.
  int64_t Run(std::string* result = nullptr) {
    grpc_slice_buffer out;
    grpc_slice_buffer_init(&out);
    bool ok = true;
    if (op_ == Op::kDecompress) {
      ok = impl_.stock ? StockDecompress(input_, &out)
                       : PooledDecompress(*input_, impl_.backend, &out);
    } else if (!impl_.stock) {
      ok = PooledCompress(*input_, options_, &out);
    } else {
      // false only means "did not shrink, sent as it is", as in core.
      StockCompress(input_, &out);
    }
    const int64_t produced = ok ? static_cast<int64_t>(out.length) : -1;
    if (ok && result != nullptr) *result = Flatten(out);
    grpc_slice_buffer_destroy(&out);
    return produced;
  }

 private:
  Op op_;
  Impl impl_;
  CompressOptions options_;
  grpc_slice_buffer* input_;
};

// Checks that `op` really did its job on `payload` before timing it: a
// benchmark of a broken path must fail, not report a fast number.
bool RoundTripOk(Op op, const Impl& impl, grpc_slice_buffer* input,
                 const std::string& payload) {
  std::string produced;
  if (CodecOp(op, impl, input).Run(&produced) < 0) return false;
  if (op == Op::kDecompress) return produced == payload;
  if (impl.stock && produced == payload) return true;  // no gain
  std::string inflated;
  return DecompressToString(produced, Format::kGzip, payload.size(), &inflated)
             .ok() &&
         inflated == payload;
}

// The heap one context holds after a message of `input` went through it,
// by the backend's own count (zlib's through its allocator hooks), which is
// what the pool's byte cap weighs. 0 for stock, which keeps nothing.
double ContextHeapBytes(Op op, const Impl& impl, const std::string& input) {
  if (impl.stock) return 0;
  const absl::string_view pieces[] = {input};
  std::string out;
  StringSink sink(&out);
  if (op == Op::kCompress) {
    auto deflater = pooled_gzip::internal::NewDeflater(
        {impl.backend, Format::kGzip, impl.level});
    if (deflater == nullptr ||
        !deflater->Deflate(pieces, std::numeric_limits<size_t>::max(), &sink)
             .ok()) {
      return 0;
    }
    return static_cast<double>(deflater->HeapBytes());
  }
  auto inflater =
      pooled_gzip::internal::NewInflater({impl.backend, Format::kGzip});
  if (inflater == nullptr ||
      !inflater->Inflate(pieces, std::numeric_limits<size_t>::max(), &sink)
           .ok()) {
    return 0;
  }
  return static_cast<double>(inflater->HeapBytes());
}

void BM_Codec(benchmark::State& state, Op op, payloads::Kind kind, size_t size,
              Impl impl) {
  const std::string payload = payloads::Make(kind, size);
  // Decompress input is a gzip stream even for incompressible data (core
  // would not have compressed it, but a peer may).
  std::string input_bytes = payload;
  CompressOptions input_options;
  if (impl.own_input) input_options.backend = impl.backend;
  if (op == Op::kDecompress &&
      !CompressToString(payload, input_options, &input_bytes).ok()) {
    state.SkipWithError("could not prepare the gzip input");
    return;
  }
  grpc_slice_buffer input;
  grpc_slice_buffer_init(&input);
  grpc_slice_buffer_add(&input, grpc_slice_from_static_buffer(
                                    input_bytes.data(), input_bytes.size()));
  if (!RoundTripOk(op, impl, &input, payload)) {
    grpc_slice_buffer_destroy(&input);
    state.SkipWithError("round trip failed");
    return;
  }
  CodecOp codec_op(op, impl, &input);
  // Steady state: the pool is warm, so the one-off creation of a context is
  // not charged to the measured ops.
  const int64_t produced = codec_op.Run();
  const double context_bytes = ContextHeapBytes(op, impl, input_bytes);

  const uint64_t faults_before = ThreadMinorFaults();
  const AllocCounts before = ReadAllocCounts();
  for (auto _ : state) {
    benchmark::DoNotOptimize(codec_op.Run());
  }
  const AllocCounts used = ReadAllocCounts() - before;
  const uint64_t faults = ThreadMinorFaults() - faults_before;
  grpc_slice_buffer_destroy(&input);

  using benchmark::Counter;
  auto per_op = [](uint64_t value) {
    return Counter(static_cast<double>(value), Counter::kAvgIterations);
  };
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(size));
  state.counters["allocs_per_op"] = per_op(used.allocs);
  state.counters["heap_bytes_per_op"] = per_op(used.bytes);
  state.counters["zlib_state_allocs_per_op"] = per_op(used.zlib_state_allocs());
  state.counters["zlib_state_bytes_per_op"] = per_op(used.zlib_state_bytes());
  state.counters["zlib_stream_inits_per_op"] =
      per_op(used.deflate_inits + used.inflate_inits);
  state.counters["minor_faults_per_op"] = per_op(faults);
  state.counters["output_bytes"] = static_cast<double>(produced);
  state.counters["context_heap_bytes"] = context_bytes;
}

// Takes --payloads=<kind>,<kind>,... or --payloads=all out of argv, which
// Google Benchmark would otherwise reject, into `kinds` (default: all).
// False for an unknown kind.
bool TakePayloadsFlag(int* argc, char** argv,
                      std::vector<payloads::Kind>* kinds) {
  using payloads::Kind;
  *kinds = payloads::AllKinds();
  constexpr std::string_view kFlag = "--payloads=";
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) != kFlag) {
      argv[kept++] = argv[i];
      continue;
    }
    std::string_view list = arg.substr(kFlag.size());
    if (list == "all") {
      *kinds = payloads::AllKinds();
      continue;
    }
    kinds->clear();
    while (!list.empty()) {
      const size_t comma = std::min(list.find(','), list.size());
      const std::optional<Kind> kind =
          payloads::ParseKind(list.substr(0, comma));
      if (!kind) return false;
      kinds->push_back(*kind);
      list.remove_prefix(std::min(comma + 1, list.size()));
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  return !kinds->empty();
}

void RegisterAll(const std::vector<payloads::Kind>& kinds) {
  for (Op op : {Op::kCompress, Op::kDecompress}) {
    for (payloads::Kind kind : kinds) {
      for (size_t size : payloads::AllSizes()) {
        for (const Impl& impl :
             op == Op::kCompress ? CompressImpls() : DecompressImpls()) {
          const std::string name =
              std::string(OpName(op)) + "/" + payloads::KindName(kind) + "/" +
              std::to_string(size) + "/" + ImplName(op, impl);
          benchmark::RegisterBenchmark(name.c_str(), BM_Codec, op, kind, size,
                                       impl)
              ->Unit(benchmark::kMicrosecond);
        }
      }
    }
  }
}

}  // namespace
}  // namespace pooled_gzip::bench

int main(int argc, char** argv) {
  std::vector<pooled_gzip::payloads::Kind> kinds;
  if (!pooled_gzip::bench::TakePayloadsFlag(&argc, argv, &kinds)) {
    std::fprintf(stderr,
                 "codec_bench: --payloads takes \"all\" or a list of words, "
                 "text, proto, json, source, random\n");
    return 2;
  }
  pooled_gzip::bench::RegisterAll(kinds);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!pooled_gzip::bench::AllocCounterActive()) {
    std::fprintf(stderr,
                 "codec_bench: the malloc interposer is not active; heap "
                 "figures would be zero\n");
    return 1;
  }
  benchmark::AddCustomContext("zlib_version", zlibVersion());
  benchmark::AddCustomContext("grpc_version", grpc_version_string());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
