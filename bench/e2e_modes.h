// The three ways the end-to-end benchmark runs the echo service, each with
// its own server and channel so that all three live in one process and can
// be measured interleaved:
//   none:   no compression on either side (stock channel and server);
//   stock:  gRPC core's gzip (channel and server default algorithm GZIP);
//   pooled: the same settings, with pooled_gzip::CreateChannel on the
//           client and pooled_gzip::EnableOnServer on the server.

#ifndef POOLED_GZIP_BENCH_E2E_MODES_H_
#define POOLED_GZIP_BENCH_E2E_MODES_H_

#include <grpcpp/channel.h>

#include <array>
#include <memory>

#include "echo.grpc.pb.h"
#include "echo_service.h"

namespace pooled_gzip::bench {

enum class Mode { kNone = 0, kStock = 1, kPooled = 2 };
inline constexpr int kModeCount = 3;
inline constexpr std::array<Mode, kModeCount> kAllModes = {
    Mode::kNone, Mode::kStock, Mode::kPooled};

const char* ModeName(Mode mode);  // "none", "stock", "pooled"

// A server and a connected channel for every mode.
class Endpoints {
 public:
  // Starts the servers and waits for each channel to connect; false if any
  // of that failed (the reason is printed).
  bool Start();
  void Shutdown();

  echo::Echo::Stub* stub(Mode mode) { return endpoint(mode).stub.get(); }

 private:
  struct Endpoint {
    echo::RunningServer server;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<echo::Echo::Stub> stub;
  };
  Endpoint& endpoint(Mode mode) { return endpoints_[static_cast<int>(mode)]; }

  std::array<Endpoint, kModeCount> endpoints_;
};

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_MODES_H_
