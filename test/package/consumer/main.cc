// A program that uses the installed package as a user's would, built in
// several link orders. It echoes gzip messages through a pooled server and
// channel in this process, then checks that CoreCodecActive() tells the
// truth: on the core codec every message is compressed and inflated by
// pooled contexts; not active, the process is stock gRPC and nothing is
// pooled.
//
//   consumer [active|stock]   also requires that path; exits 0 when all
//                             checks pass.
//
// With CONSUMER_BACKEND=zlib|libdeflate|isal in the environment it
// configures that backend first, and requires every message it compressed
// to be counted under it in the traffic statistics.

#include <grpc/grpc.h>
#include <pooled_gzip/pooled_gzip.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "pooled_echo.h"

namespace {

bool EchoOnce(grpc::GenericStub* stub, const std::string& payload) {
  grpc::ByteBuffer response;
  std::string echoed;
  return consumer::CallEcho(stub, payload, &response).ok() &&
         pooled_gzip::DecodeToString(response, &echoed).ok() &&
         echoed == payload;
}

uint64_t Checkouts(const pooled_gzip::PoolCounters& counters) {
  return counters.created + counters.reused;
}

// Messages compressed so far, per backend as the statistics name it.
std::map<std::string, uint64_t> CompressedByBackend() {
  std::map<std::string, uint64_t> messages;
  for (const pooled_gzip::TrafficStats& row : pooled_gzip::GetTrafficStats()) {
    if (row.compressing) messages[row.backend] += row.messages;
  }
  return messages;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string expected = argc > 1 ? argv[1] : "";
  const char* backend_name = std::getenv("CONSUMER_BACKEND");
  if (backend_name != nullptr) {
    const std::map<std::string, pooled_gzip::Backend> backends = {
        {"zlib", pooled_gzip::Backend::kZlib},
        {"libdeflate", pooled_gzip::Backend::kLibdeflate},
        {"isal", pooled_gzip::Backend::kIsal}};
    pooled_gzip::Options options;
    options.backend = backends.at(backend_name);
    if (!pooled_gzip::Configure(options).ok()) return 1;
  }
  // As any program that uses gRPC's C core itself (every async client):
  // a direct reference to libgrpc, which can put it ahead in the lookup
  // order.
  grpc_init();
  consumer::PooledEcho echo;
  if (!echo.started()) {
    std::cerr << "consumer: no server\n";
    return 1;
  }

  const std::string payload = consumer::CompressiblePayload();
  const pooled_gzip::PoolStats before = pooled_gzip::GetPoolStats();
  constexpr int kCalls = 20;
  for (int i = 0; i < kCalls; ++i) {
    if (!EchoOnce(echo.stub(), payload)) {
      std::cerr << "consumer: echo " << i << " failed\n";
      return 1;
    }
  }
  const pooled_gzip::PoolStats after = pooled_gzip::GetPoolStats();
  echo.Shutdown();
  grpc_shutdown();

  const bool active = pooled_gzip::CoreCodecActive();
  const uint64_t reads = Checkouts(after.readers) - Checkouts(before.readers);
  const uint64_t writes = Checkouts(after.writers) - Checkouts(before.writers);
  const uint64_t reused = after.writers.reused - before.writers.reused;
  std::cout << "consumer: core codec " << (active ? "active" : "not active")
            << "; pooled writes " << writes << " (" << reused
            << " on a reused writer), pooled reads " << reads << " for "
            << kCalls << " gzip echoes\n";
  // Requests and responses: 2 per call, written and read by pooled
  // contexts exactly when the core codec is on.
  const uint64_t pooled = active ? 2 * kCalls : 0;
  bool ok = writes == pooled && reads == pooled;
  if (!ok) std::cerr << "consumer: CoreCodecActive() does not match\n";
  // Sequential calls on a few threads: writers never reused are no pool.
  if (active && reused == 0) {
    std::cerr << "consumer: no writer was reused\n";
    ok = false;
  }
  if (backend_name != nullptr) {
    const std::map<std::string, uint64_t> compressed = CompressedByBackend();
    for (const auto& [backend, messages] : compressed) {
      std::cout << "consumer: " << messages << " messages compressed by "
                << backend << "\n";
    }
    if (compressed.size() != 1 || compressed.begin()->first != backend_name ||
        compressed.begin()->second < 2 * kCalls) {
      std::cerr << "consumer: the statistics do not count every message "
                   "under the configured backend\n";
      ok = false;
    }
  }
  if (!expected.empty() && expected != (active ? "active" : "stock")) {
    std::cerr << "consumer: expected the " << expected << " path\n";
    ok = false;
  }
  return ok ? 0 : 1;
}
