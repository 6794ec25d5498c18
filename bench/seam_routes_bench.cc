// The two ways a shared libgrpc's messages reach the pool, side by side in
// one process, on core's slicing (codec_paths.h) and the library's default
// backend:
//  - codec_functions: gRPC's grpc_msg_compress/decompress slots pointed at
//    the core codec, which writes gRPC's slices directly (where libgrpc
//    has those slots, as Debian's);
//  - zlib_seam: libgrpc's own codec functions, whose zlib calls the zlib
//    seam serves (every shared libgrpc, Ubuntu's included): core's body
//    around them, its 1 KiB output slices and a copy into them.
// Both run after InstallCoreCodec(), so the second is exactly what gRPC's
// filter reaches where only the zlib calls are served.
//
//   seam_routes_bench [--benchmark_filter=...] [--benchmark_repetitions=N]

#include <benchmark/benchmark.h>
#include <grpc/grpc.h>
#include <grpc/slice_buffer.h>

#include <cstdio>
#include <string>
#include <vector>

#include "codec_paths.h"
#include "payloads.h"
#include "pooled_gzip/pooled_gzip.h"
#include "seam/activation.h"
#include "seam/core_codec.h"

namespace pooled_gzip::bench {
namespace {

using internal::MessageCodec;

enum class Route { kCodecFunctions, kZlibSeam };

const MessageCodec& CodecOf(Route route) {
  return route == Route::kZlibSeam ? internal::Stock() : internal::kPooledCodec;
}

void BM_Route(benchmark::State& state, Route route, bool compressing,
              size_t size) {
  const std::string message =
      payloads::Make(payloads::Kind::kRecords, size, /*seed=*/7);
  grpc_slice_buffer plain;
  grpc_slice_buffer compressed;
  grpc_slice_buffer_init(&plain);
  grpc_slice_buffer_init(&compressed);
  AddSlices(message, CoreSliceLengths(Direction::kSent, size), &plain);
  internal::PooledCompress(GRPC_COMPRESS_GZIP, &plain, &compressed);
  const std::string stream = Flatten(compressed);
  grpc_slice_buffer received;
  grpc_slice_buffer_init(&received);
  AddSlices(stream, CoreSliceLengths(Direction::kReceived, stream.size()),
            &received);
  const MessageCodec& codec = CodecOf(route);
  for (auto _ : state) {
    grpc_slice_buffer output;
    grpc_slice_buffer_init(&output);
    const int ok =
        compressing ? codec.compress(GRPC_COMPRESS_GZIP, &plain, &output)
                    : codec.decompress(GRPC_COMPRESS_GZIP, &received, &output);
    if (ok != 1) state.SkipWithError("the codec refused the message");
    grpc_slice_buffer_destroy(&output);
  }
  state.SetBytesProcessed(state.iterations() * size);
  for (grpc_slice_buffer* buffer : {&plain, &compressed, &received}) {
    grpc_slice_buffer_destroy(buffer);
  }
}

void RegisterAll() {
  for (size_t size : {size_t{1} << 10, size_t{64} << 10, size_t{1} << 20}) {
    for (bool compressing : {true, false}) {
      for (Route route : {Route::kCodecFunctions, Route::kZlibSeam}) {
        const std::string name =
            std::string(compressing ? "compress/" : "decompress/") +
            payloads::SizeLabel(size) + "/" +
            (route == Route::kZlibSeam ? "zlib_seam" : "codec_functions");
        benchmark::RegisterBenchmark(name.c_str(), BM_Route, route, compressing,
                                     size)
            ->MeasureProcessCPUTime()
            ->UseRealTime();
      }
    }
  }
}

}  // namespace
}  // namespace pooled_gzip::bench

int main(int argc, char** argv) {
  grpc_init();
  if (!pooled_gzip::InstallCoreCodec()) {
    std::fprintf(stderr, "seam_routes_bench: the core codec is not active\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  pooled_gzip::bench::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  grpc_shutdown();
  return 0;
}
