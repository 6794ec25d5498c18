// The loading-importer scenario, for loading_importer_test: one thread
// loads and unloads loading_importer (an object that imports gRPC's
// message codec) --loads times while main keeps installing the core codec,
// so that installs meet the importer half loaded: listed by the loader but
// not yet relocated. Each install after a load scans the loaded objects
// again for libgrpc's zlib slots; it must leave such an object alone (it
// writes only libgrpc's slots), neither crashing nor deadlocking with the
// loader. Afterwards the importer, loaded once more, must be served by
// the pooled codec: its calls reach libgrpc's codec functions, whose zlib
// calls lead to pooled_gzip. Exits 0 when it was, 1 otherwise. Prints a
// line every kLoadsPerLine loads, and after each step, so that a hang
// shows as silence.
//
// Built twice: with libpooled_gzip ahead of libgrpc in NEEDED (as CMake
// orders them), and with libgrpc first. pooled_gzip defines none of gRPC's
// codec functions, so the importer's calls bind to libgrpc's in both, and
// both must be served the same.

#include <dlfcn.h>
#include <grpc/slice_buffer.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "pooled_gzip/pool_stats.h"
#include "pooled_gzip/pooled_gzip.h"
#include "traffic_totals.h"

ABSL_FLAG(int, loads, 2000,
          "dlopen/dlclose rounds of the importer while main installs");

namespace {

// Under TSan a load takes up to 50 ms on a busy machine: a line every few
// seconds at worst.
constexpr int kLoadsPerLine = 50;

using ImporterCompressFn = int (*)(grpc_slice_buffer*);
using ImporterDecompressFn = int (*)(grpc_slice_buffer*, int*);

// Loads and unloads the importer `loads` times; false if a load failed.
bool LoadUnloadLoop(int loads) {
  for (int i = 0; i < loads; ++i) {
    void* handle = dlopen(POOLED_GZIP_LOADING_IMPORTER, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      std::fprintf(stderr, "dlopen: %s\n", dlerror());
      return false;
    }
    dlclose(handle);
    if ((i + 1) % kLoadsPerLine == 0) {
      std::printf("loaded the importer %d of %d times\n", i + 1, loads);
      std::fflush(stdout);
    }
  }
  return true;
}

uint64_t Checkouts(const pooled_gzip::PoolCounters& counters) {
  return counters.created + counters.reused;
}

// What the importer's two calls should move, and nothing else.
struct Counts {
  uint64_t compressed;   // gzip messages compressed
  uint64_t inflated;     // gzip messages decompressed
  uint64_t given;        // messages given to the codec, both directions
  uint64_t writer_uses;  // writer checkouts
  uint64_t reader_uses;  // reader checkouts

  static Counts Now() {
    using pooled_gzip::test_support::CodecMessages;
    using pooled_gzip::test_support::Totals;
    const pooled_gzip::PoolStats pools = pooled_gzip::GetPoolStats();
    return {Totals(true, "gzip").messages, Totals(false, "gzip").messages,
            CodecMessages(true) + CodecMessages(false),
            Checkouts(pools.writers), Checkouts(pools.readers)};
  }
};

// Calls the importer once each way; true if both calls were served by the
// pooled codec, exactly one message each.
bool ImporterIsPooled(void* importer) {
  auto compress =
      reinterpret_cast<ImporterCompressFn>(dlsym(importer, "ImporterCompress"));
  auto decompress = reinterpret_cast<ImporterDecompressFn>(
      dlsym(importer, "ImporterDecompress"));
  if (compress == nullptr || decompress == nullptr) {
    std::fprintf(stderr, "dlsym: %s\n", dlerror());
    return false;
  }
  const Counts before = Counts::Now();
  grpc_slice_buffer compressed;
  grpc_slice_buffer_init(&compressed);
  const int compress_result = compress(&compressed);
  int is_message = 0;
  const int decompress_result = decompress(&compressed, &is_message);
  grpc_slice_buffer_destroy(&compressed);
  const Counts after = Counts::Now();
  std::printf(
      "importer: compress %d, decompress %d, round trip %s; moved: gzip "
      "compressed %llu, inflated %llu, given %llu, writer uses %llu, reader "
      "uses %llu\n",
      compress_result, decompress_result, is_message ? "intact" : "ALTERED",
      static_cast<unsigned long long>(after.compressed - before.compressed),
      static_cast<unsigned long long>(after.inflated - before.inflated),
      static_cast<unsigned long long>(after.given - before.given),
      static_cast<unsigned long long>(after.writer_uses - before.writer_uses),
      static_cast<unsigned long long>(after.reader_uses - before.reader_uses));
  return compress_result == 1 && decompress_result == 1 && is_message == 1 &&
         after.compressed == before.compressed + 1 &&
         after.inflated == before.inflated + 1 &&
         after.given == before.given + 2 &&
         after.writer_uses == before.writer_uses + 1 &&
         after.reader_uses == before.reader_uses + 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // The first install runs alone: whether it deadlocks against a thread
  // in dlopen() is loader_lock_test's question; this one is about the
  // installs after it, which point the slots of newly loaded objects.
  if (!pooled_gzip::InstallCoreCodec()) {
    std::printf("core codec not active\n");
    return 1;
  }
  // Flushed now: a crash in the loop below would lose buffered output.
  std::printf("core codec installed; loading the importer %d times\n",
              absl::GetFlag(FLAGS_loads));
  std::fflush(stdout);
  std::atomic<bool> loops_done{false};
  bool loaded = true;
  std::thread loader([&] {
    loaded = LoadUnloadLoop(absl::GetFlag(FLAGS_loads));
    loops_done.store(true, std::memory_order_release);
  });
  uint64_t installs = 0;
  while (!loops_done.load(std::memory_order_acquire)) {
    pooled_gzip::InstallCoreCodec();
    ++installs;
  }
  loader.join();
  std::printf("%d loads of the importer, %llu installs meanwhile\n",
              absl::GetFlag(FLAGS_loads),
              static_cast<unsigned long long>(installs));
  if (!loaded) return 1;

  void* importer = dlopen(POOLED_GZIP_LOADING_IMPORTER, RTLD_NOW | RTLD_LOCAL);
  if (importer == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  const bool active = pooled_gzip::InstallCoreCodec();
  const bool pooled = active && ImporterIsPooled(importer);
  std::printf("core codec active: %s; importer served by the pool: %s\n",
              active ? "yes" : "no", pooled ? "yes" : "no");
  dlclose(importer);
  return pooled ? 0 : 1;
}
