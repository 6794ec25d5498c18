// A program linked with gRPC only, as a host that loads plugins is: it
// dlopen()s the installed libpooled_gzip after gRPC is loaded, installs the
// core codec through dlsym, and then serves and calls plain gRPC, which
// must be pooled both ways.
//
//   dlopen_consumer /path/to/libpooled_gzip.so.1   exits 0 when all checks
//                                                  pass.

#include <dlfcn.h>
#include <grpc/grpc.h>
#include <pooled_gzip/pool_stats.h>

#include <iostream>
#include <memory>
#include <string>

#include "generic_echo.h"

namespace {

template <typename Fn>
Fn Find(void* library, const char* name) {
  return reinterpret_cast<Fn>(dlsym(library, name));
}

uint64_t Checkouts(const pooled_gzip::PoolCounters& counters) {
  return counters.created + counters.reused;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: dlopen_consumer LIBRARY\n";
    return 2;
  }
  grpc_init();  // gRPC is loaded and in use before the plugin comes
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::cerr << "dlopen_consumer: " << dlerror() << "\n";
    return 1;
  }
  auto install =
      Find<bool (*)()>(library, "_ZN11pooled_gzip16InstallCoreCodecEv");
  auto stats = Find<pooled_gzip::PoolStats (*)()>(
      library, "_ZN11pooled_gzip12GetPoolStatsEv");
  if (install == nullptr || stats == nullptr) {
    std::cerr << "dlopen_consumer: symbols not found\n";
    return 1;
  }
  if (!install()) {
    std::cerr << "dlopen_consumer: core codec not active\n";
    return 1;
  }

  consumer::EchoService service;
  int port = 0;
  // A plain gRPC server: nothing of pooled_gzip but the install above.
  std::unique_ptr<grpc::Server> server = consumer::StartGzipServer(
      &service, &port, [](grpc::ServerBuilder& /*builder*/) {});
  if (server == nullptr) {
    std::cerr << "dlopen_consumer: no server\n";
    return 1;
  }
  grpc::GenericStub stub(consumer::GzipChannelTo(port));

  const std::string payload = consumer::CompressiblePayload();
  const pooled_gzip::PoolStats before = stats();
  constexpr int kCalls = 20;
  for (int i = 0; i < kCalls; ++i) {
    grpc::ByteBuffer response;
    if (!consumer::CallEcho(&stub, payload, &response).ok() ||
        consumer::Bytes(response) != payload) {
      std::cerr << "dlopen_consumer: echo " << i << " failed\n";
      return 1;
    }
  }
  const pooled_gzip::PoolStats after = stats();
  server->Shutdown();
  grpc_shutdown();

  const uint64_t reads = Checkouts(after.readers) - Checkouts(before.readers);
  const uint64_t writes = Checkouts(after.writers) - Checkouts(before.writers);
  std::cout << "dlopen_consumer: pooled writes " << writes << ", pooled reads "
            << reads << " for " << kCalls << " plain gRPC gzip echoes\n";
  // A request and a response per call, each written and read once.
  return writes == 2 * kCalls && reads == 2 * kCalls ? 0 : 1;
}
