// Example echo server: stock gRPC compression or pooled-gzip, same binary.
//
//   echo_server --port=50051 --mode=pooled --compression=gzip
//
// Prints "listening on 127.0.0.1:PORT" once it serves, and its pool
// statistics when SIGINT or SIGTERM stops it.

#include <signal.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"

ABSL_FLAG(int, port, 50051, "TCP port on 127.0.0.1; 0 picks a free one");
ABSL_FLAG(std::string, mode, "pooled", "pooled | stock");
ABSL_FLAG(std::string, compression, "none",
          "default algorithm for responses: gzip | deflate | none (a "
          "request's response_encoding overrides it per call)");
ABSL_FLAG(int, level, -1, "zlib level for pooled compression, -1..9");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  pooled_gzip::echo::ServerOptions options;
  options.address = "127.0.0.1:" + std::to_string(absl::GetFlag(FLAGS_port));
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode != "pooled" && mode != "stock") {
    std::cerr << "--mode must be pooled or stock\n";
    return 2;
  }
  options.pooled = mode == "pooled";
  if (!pooled_gzip::echo::ParseAlgorithm(absl::GetFlag(FLAGS_compression),
                                         &options.default_algorithm)) {
    std::cerr << "--compression must be gzip, deflate or none\n";
    return 2;
  }
  options.level = absl::GetFlag(FLAGS_level);

  // Block the stop signals before gRPC starts its threads, so that only
  // sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  pooled_gzip::echo::RunningServer running =
      pooled_gzip::echo::StartEchoServer(options);
  if (running.server == nullptr) {
    std::cerr << "cannot listen on " << options.address << "\n";
    return 1;
  }
  std::cout << "listening on 127.0.0.1:" << running.port << " (mode " << mode
            << ", default compression " << absl::GetFlag(FLAGS_compression)
            << ")" << std::endl;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  running.server->Shutdown();
  running.server->Wait();
  std::cout << "stopped by signal " << signal_number
            << "; pool: " << pooled_gzip::ToString(pooled_gzip::GetPoolStats())
            << std::endl;
  return 0;
}
