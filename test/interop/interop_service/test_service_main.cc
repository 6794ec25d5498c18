// grpc.testing.TestService on pooled-gzip raw mode (see test_service.h).
//
//   interop_test_server --port=0   prints "listening on 127.0.0.1:PORT"
//
// Runs until SIGTERM or SIGINT.

#include <signal.h>

#include <iostream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "pooled_gzip/pooled_gzip.h"
#include "test_service.h"

ABSL_FLAG(int, port, 0, "TCP port on 127.0.0.1; 0 picks a free one");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // Only sigwait below receives the stop signals, not gRPC's threads.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  pooled_gzip::interop::RunningTestServer running =
      pooled_gzip::interop::StartTestServer(absl::GetFlag(FLAGS_port));
  if (running.server == nullptr) {
    std::cerr << "cannot listen\n";
    return 1;
  }
  std::cout << "listening on 127.0.0.1:" << running.port
            << " (grpc.testing.TestService, pooled-gzip raw mode)" << std::endl;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  running.server->Shutdown();
  running.server->Wait();
  std::cout << "pool: " << pooled_gzip::ToString(pooled_gzip::GetPoolStats())
            << std::endl;
  return 0;
}
