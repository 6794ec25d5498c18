// Example echo server: stock gRPC compression or pooled-gzip, same binary.
//
//   echo_server --port=50051 --mode=pooled --compression=gzip
//
// Prints "listening on 127.0.0.1:PORT" once it serves (with --metrics_port,
// then "metrics on http://127.0.0.1:PORT/metrics" on a line of its own), and
// its pool statistics when SIGINT or SIGTERM stops it.

#include <signal.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"
#ifdef POOLED_GZIP_ECHO_METRICS
#include "pooled_gzip/prometheus.h"
#include "prometheus/exposer.h"
#endif

ABSL_FLAG(int, port, 50051, "TCP port on 127.0.0.1; 0 picks a free one");
ABSL_FLAG(std::string, mode, "pooled", "pooled | stock");
ABSL_FLAG(std::string, compression, "none",
          "default algorithm for responses: gzip | deflate | none (a "
          "request's response_encoding overrides it per call)");
ABSL_FLAG(std::string, backend, "",
          "pooled mode: deflate backend, zlib | libdeflate | isal (empty: "
          "the library's default)");
ABSL_FLAG(int, level, -1,
          "pooled mode: the backend's level (zlib 0-9, libdeflate 0-12, "
          "isal 0-3); -1: its default");
ABSL_FLAG(int, max_receive_mib, 0,
          "largest request in MiB; 0: gRPC's default (4 MiB)");
ABSL_FLAG(int, metrics_port, 0,
          "serve Prometheus metrics on http://127.0.0.1:PORT/metrics; 0: "
          "off, -1: a free port");

namespace {

// The Prometheus endpoint behind --metrics_port.
class MetricsEndpoint {
 public:
#ifdef POOLED_GZIP_ECHO_METRICS
  static constexpr bool kAvailable = true;
#else
  static constexpr bool kAvailable = false;
#endif

  // Serves /metrics on 127.0.0.1:`port` (-1: a free one) and returns the
  // port it got; 0 after saying why on stderr.
  int Start(int port) {
#ifdef POOLED_GZIP_ECHO_METRICS
    const std::string address =
        "127.0.0.1:" + std::to_string(port < 0 ? 0 : port);
    try {
      exposer_ = std::make_unique<prometheus::Exposer>(address);
    } catch (const std::exception& e) {
      std::cerr << "cannot serve metrics on " << address << ": " << e.what()
                << "\n";
      return 0;
    }
    collectable_ = pooled_gzip::CreateMetricsCollectable();
    exposer_->RegisterCollectable(collectable_);
    const std::vector<int> ports = exposer_->GetListeningPorts();
    return ports.empty() ? 0 : ports.front();
#else
    (void)port;
    return 0;
#endif
  }

 private:
#ifdef POOLED_GZIP_ECHO_METRICS
  // The exposer holds the collectable weakly; it goes first.
  std::shared_ptr<prometheus::Collectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
#endif
};

}  // namespace

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
  // Process-wide: the core codec compresses every message of the process.
  if (options.pooled) {
    const absl::Status configured = pooled_gzip::echo::ConfigureFromFlags(
        absl::GetFlag(FLAGS_backend), absl::GetFlag(FLAGS_level));
    if (!configured.ok()) {
      std::cerr << configured.message() << "\n";
      return 2;
    }
  }
  if (const int mib = absl::GetFlag(FLAGS_max_receive_mib); mib > 0) {
    options.max_receive_message_bytes = mib << 20;
  }
  const int metrics_port = absl::GetFlag(FLAGS_metrics_port);
  if (metrics_port < -1 || metrics_port > 65535) {
    std::cerr << "--metrics_port must be -1..65535\n";
    return 2;
  }
  if (metrics_port != 0 && !MetricsEndpoint::kAvailable) {
    std::cerr << "--metrics_port: this build has no metrics (the "
                 "pooled_gzip::prometheus component needs prometheus-cpp)\n";
    return 2;
  }

  // Block the stop signals before gRPC starts its threads, so that only
  // sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // After the mask: the exposer's threads inherit it.
  MetricsEndpoint metrics;
  int served_metrics_port = 0;
  if (metrics_port != 0) {
    served_metrics_port = metrics.Start(metrics_port);
    if (served_metrics_port == 0) return 1;
  }

  pooled_gzip::echo::RunningServer running =
      pooled_gzip::echo::StartEchoServer(options);
  if (running.server == nullptr) {
    std::cerr << "cannot listen on " << options.address << "\n";
    return 1;
  }
  std::cout << "listening on 127.0.0.1:" << running.port << " (mode " << mode
            << (options.pooled
                    ? ", backend " + pooled_gzip::echo::CodecDescription()
                    : std::string())
            << ", default compression " << absl::GetFlag(FLAGS_compression)
            << ", core codec "
            << (pooled_gzip::CoreCodecActive() ? "active" : "not active") << ")"
            << std::endl;
  if (served_metrics_port != 0) {
    std::cout << "metrics on http://127.0.0.1:" << served_metrics_port
              << "/metrics" << std::endl;
  }

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  running.server->Shutdown();
  running.server->Wait();
  std::cout << "stopped by signal " << signal_number
            << "; pool: " << pooled_gzip::ToString(pooled_gzip::GetPoolStats())
            << std::endl;
  for (const std::string& line : pooled_gzip::echo::TrafficLines()) {
    std::cout << "traffic: " << line << std::endl;
  }
  return 0;
}
