// One run of the loader-lock scenario, for loader_lock_test: a thread
// loads and unloads a trivial library in a loop (as NSS lookups, iconv,
// OpenSSL providers or plugins do in a real process) while main installs
// the core codec. Installing must not wait for the loader's locks while it
// holds one of them, or the two threads deadlock and this never exits.
//
// Linked with libpooled_gzip ahead of libgrpc in NEEDED (the order CMake
// and pkg-config give), so that gRPC's lazily bound calls to its codec
// bind to this library's definitions. Prints a line once the loop runs,
// so that a hang shows as no line after it, then "core codec active:
// yes|no"; exits 0 once the loop has stopped, 2 if the loop could not run.

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <thread>

#include "pooled_gzip/pooled_gzip.h"

namespace {

// Bounds the wait for the loop's first round; it takes milliseconds.
constexpr std::chrono::seconds kLoopStartBound{10};

// Loads and unloads `path` until `stop`; `started` is set after the first
// round, so that the caller knows the loop runs. False if a load failed.
bool LoadUnloadLoop(const char* path, const std::atomic<bool>& stop,
                    std::promise<void>& started) {
  for (bool first = true; first || !stop.load(std::memory_order_relaxed);
       first = false) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) dlclose(handle);
    if (first) started.set_value();
    if (handle == nullptr) {
      std::fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  std::atomic<bool> stop{false};
  std::promise<void> started;
  std::future<void> loop_running = started.get_future();
  bool loaded = true;
  std::thread loader([&] {
    loaded = LoadUnloadLoop(POOLED_GZIP_TRIVIAL_LIBRARY, stop, started);
  });
  // Installing before the loop runs would miss the race this is about.
  if (loop_running.wait_for(kLoopStartBound) != std::future_status::ready) {
    std::fprintf(stderr, "the load loop did not start\n");
    stop.store(true);
    loader.join();
    return 2;
  }
  std::printf("load loop running; installing the core codec\n");
  std::fflush(stdout);
  const bool active =
      pooled_gzip::InstallCoreCodec() && pooled_gzip::CoreCodecActive();
  stop.store(true);
  loader.join();
  if (!loaded) return 2;
  std::printf("core codec active: %s\n", active ? "yes" : "no");
  return 0;
}
