// Codec micro-benchmarks: gRPC core's per-message zlib stream against the
// pooled codec, per payload kind and size, for compress and decompress.
//
// Besides time per op and bytes/s, each benchmark reports heap traffic per
// op from the malloc interposer linked into this binary, and how much of it
// was zlib state. Names are "<op>/<kind>/<size in bytes>/<stock|pooled>".

#include <benchmark/benchmark.h>
#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <sys/resource.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "alloc_counter.h"
#include "codec_paths.h"
#include "payloads.h"
#include "pooled_gzip/codec.h"

namespace pooled_gzip::bench {
namespace {

enum class Op { kCompress, kDecompress };
enum class Impl { kStock, kPooled };

const char* OpName(Op op) {
  return op == Op::kCompress ? "compress" : "decompress";
}
const char* ImplName(Impl impl) {
  return impl == Impl::kStock ? "stock" : "pooled";
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
  CodecOp(Op op, Impl impl, grpc_slice_buffer* input)
      : op_(op), impl_(impl), input_(input) {}

  // Returns the bytes produced (wire bytes for compress), or -1 on error.
  // `result` receives them, flattened, when not null.
  int64_t Run(std::string* result = nullptr) {
    if (op_ == Op::kDecompress && impl_ == Impl::kPooled) {
      std::string out;
      if (!PooledDecompress(*input_, &out)) return -1;
      if (result != nullptr) *result = out;
      return static_cast<int64_t>(out.size());
    }
    grpc_slice_buffer out;
    grpc_slice_buffer_init(&out);
    bool ok = true;
    if (op_ == Op::kDecompress) {
      ok = StockDecompress(input_, &out);
    } else if (impl_ == Impl::kPooled) {
      ok = PooledCompress(*input_, &out);
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
  grpc_slice_buffer* input_;
};

// Checks that `op` really did its job on `payload` before timing it: a
// benchmark of a broken path must fail, not report a fast number.
bool RoundTripOk(Op op, Impl impl, grpc_slice_buffer* input,
                 const std::string& payload) {
  std::string produced;
  if (CodecOp(op, impl, input).Run(&produced) < 0) return false;
  if (op == Op::kDecompress) return produced == payload;
  if (impl == Impl::kStock && produced == payload) return true;  // no gain
  std::string inflated;
  return DecompressToString(produced, Format::kGzip, payload.size(), &inflated)
             .ok() &&
         inflated == payload;
}

void BM_Codec(benchmark::State& state, Op op, PayloadKind kind, size_t size,
              Impl impl) {
  const std::string payload = MakePayload(kind, size);
  // Decompress input is a gzip stream even for incompressible data (core
  // would not have compressed it, but a peer may).
  std::string input_bytes = payload;
  if (op == Op::kDecompress &&
      !CompressToString(payload, CompressOptions{}, &input_bytes).ok()) {
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
}

void RegisterAll() {
  for (Op op : {Op::kCompress, Op::kDecompress}) {
    for (PayloadKind kind : AllPayloadKinds()) {
      for (size_t size : AllPayloadSizes()) {
        for (Impl impl : {Impl::kStock, Impl::kPooled}) {
          const std::string name = std::string(OpName(op)) + "/" +
                                   PayloadKindName(kind) + "/" +
                                   std::to_string(size) + "/" + ImplName(impl);
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
  pooled_gzip::bench::RegisterAll();
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
