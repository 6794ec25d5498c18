// Example echo server: stock gRPC compression or pooled-gzip, same binary.
//
//   echo_server --port=50051 --mode=pooled --compression=gzip
//
// Prints "listening on 127.0.0.1:PORT (...)" once it serves (with
// --metrics_port, then "metrics on http://127.0.0.1:PORT/metrics"), and its
// pool and traffic statistics when SIGINT or SIGTERM stops it.

#include <grpc/compression.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <algorithm>
#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "echo.grpc.pb.h"
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
          "pooled mode: zlib | libdeflate | isal (empty: the default)");
ABSL_FLAG(int, level, -1, "pooled mode: the backend's level; -1: default");
ABSL_FLAG(std::string, decoder, "",
          "pooled mode: the backend that inflates requests, whoever "
          "compressed them (empty: the fastest per format)");
ABSL_FLAG(bool, skip_incompressible, false,
          "pooled mode: send responses that would not compress plain, "
          "without compressing them first");
ABSL_FLAG(int, max_receive_mib, 0, "largest request in MiB; 0: gRPC's 4");
ABSL_FLAG(int, metrics_port, 0,
          "serve Prometheus metrics on 127.0.0.1:PORT; 0: off, -1: any port");

using pooled_gzip::echo::EchoRequest;
using pooled_gzip::echo::EchoResponse;

namespace {

// "gzip", "deflate", "identity" or "none" as gRPC's enum.
bool ParseAlgorithm(const std::string& name, grpc_compression_algorithm* out) {
  const std::string grpc_name = name == "none" ? "identity" : name;
  return grpc_compression_algorithm_parse(
             grpc_slice_from_static_buffer(grpc_name.data(), grpc_name.size()),
             out) != 0;
}

// Echoes every payload back. A request's response_encoding picks the
// algorithm of its call's responses, exactly as without pooled-gzip.
class EchoService final : public pooled_gzip::echo::Echo::Service {
  static grpc::Status PerCall(grpc::ServerContext* context,
                              const EchoRequest& request) {
    grpc_compression_algorithm algorithm;
    if (request.response_encoding().empty()) return grpc::Status::OK;
    if (!ParseAlgorithm(request.response_encoding(), &algorithm)) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "unknown response_encoding: " + request.response_encoding()};
    }
    context->set_compression_algorithm(algorithm);
    return grpc::Status::OK;
  }

  grpc::Status Unary(grpc::ServerContext* context, const EchoRequest* request,
                     EchoResponse* response) override {
    response->set_payload(request->payload());
    return PerCall(context, *request);
  }
  grpc::Status ServerStream(grpc::ServerContext* context,
                            const EchoRequest* request,
                            grpc::ServerWriter<EchoResponse>* writer) override {
    if (grpc::Status s = PerCall(context, *request); !s.ok()) return s;
    EchoResponse response;
    response.set_payload(request->payload());
    for (uint32_t i = 0; i < std::max(request->response_count(), 1u); ++i) {
      if (!writer->Write(response)) break;
    }
    return grpc::Status::OK;
  }
  grpc::Status ClientStream(grpc::ServerContext* context,
                            grpc::ServerReader<EchoRequest>* reader,
                            EchoResponse* response) override {
    EchoRequest request;
    for (uint64_t n = 0; reader->Read(&request); ++n) {
      grpc::Status s = n == 0 ? PerCall(context, request) : grpc::Status();
      if (!s.ok()) return s;
      response->set_received_messages(n + 1);
      response->set_received_bytes(response->received_bytes() +
                                   request.payload().size());
      *response->mutable_payload() = std::move(*request.mutable_payload());
    }
    return grpc::Status::OK;
  }
  grpc::Status Bidi(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<EchoResponse, EchoRequest>* stream) override {
    EchoRequest request;
    EchoResponse response;
    for (bool first = true; stream->Read(&request); first = false) {
      grpc::Status s = first ? PerCall(context, request) : grpc::Status();
      if (!s.ok()) return s;
      *response.mutable_payload() = std::move(*request.mutable_payload());
      if (!stream->Write(response)) break;
    }
    return grpc::Status::OK;
  }
};

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string mode = absl::GetFlag(FLAGS_mode);
  const int metrics_port = absl::GetFlag(FLAGS_metrics_port);
  grpc_compression_algorithm algorithm;
  if ((mode != "pooled" && mode != "stock") ||
      !ParseAlgorithm(absl::GetFlag(FLAGS_compression), &algorithm) ||
      metrics_port < -1 || metrics_port > 65535) {
    std::cerr << "bad --mode, --compression or --metrics_port\n";
    return 2;
  }
  const bool pooled = mode == "pooled";

  // Process-wide and optional: another backend, level or decoder for every
  // message, and skipping what does not compress.
  const std::string backend = absl::GetFlag(FLAGS_backend);
  const std::string decoder = absl::GetFlag(FLAGS_decoder);
  const int level = absl::GetFlag(FLAGS_level);
  const bool skip = absl::GetFlag(FLAGS_skip_incompressible);
  if (pooled && (!backend.empty() || !decoder.empty() || skip ||
                 level != pooled_gzip::kDefaultLevel)) {
    pooled_gzip::Options options = pooled_gzip::GetOptions();
    const auto parsed = pooled_gzip::ParseBackend(backend);
    if (!backend.empty() && !parsed) return std::cerr << "bad --backend\n", 2;
    if (parsed) options.backend = *parsed;
    options.decoder = pooled_gzip::ParseBackend(decoder);
    if (!decoder.empty() && !options.decoder) {
      return std::cerr << "bad --decoder\n", 2;
    }
    options.level = level;
    options.skip_incompressible = skip;
    if (const absl::Status s = pooled_gzip::Configure(options); !s.ok()) {
      return std::cerr << s.message() << "\n", 2;
    }
  }

  // Only sigwait below receives the stop signals: blocked before any thread
  // (gRPC's, the exposer's) starts, so that they all inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

#ifdef POOLED_GZIP_ECHO_METRICS
  // The exposer holds the collectable weakly; it must outlive the exposer.
  std::shared_ptr<prometheus::Collectable> collectable;
  std::unique_ptr<prometheus::Exposer> exposer;
  if (metrics_port != 0) {
    try {
      exposer = std::make_unique<prometheus::Exposer>(
          "127.0.0.1:" + std::to_string(std::max(metrics_port, 0)));
    } catch (const std::exception& e) {
      return std::cerr << "cannot serve metrics: " << e.what() << "\n", 1;
    }
    collectable = pooled_gzip::CreateMetricsCollectable();
    exposer->RegisterCollectable(collectable);
  }
#else
  if (metrics_port != 0) return std::cerr << "built without metrics\n", 2;
#endif

  EchoService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(
      "127.0.0.1:" + std::to_string(absl::GetFlag(FLAGS_port)),
      grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.SetDefaultCompressionAlgorithm(algorithm);
  if (const int mib = absl::GetFlag(FLAGS_max_receive_mib); mib > 0) {
    builder.SetMaxReceiveMessageSize(mib << 20);
  }
  if (pooled) pooled_gzip::EnableOnServer(builder);  // the one extra call
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) return std::cerr << "cannot listen\n", 1;

  const pooled_gzip::Options used = pooled_gzip::GetOptions();
  std::cout << "listening on 127.0.0.1:" << port << " (mode " << mode;
  if (pooled) {
    std::cout << ", backend " << pooled_gzip::BackendName(used.backend)
              << (used.level == pooled_gzip::kDefaultLevel
                      ? std::string(" at its default level")
                      : " level " + std::to_string(used.level));
  }
  std::cout << ", default compression " << absl::GetFlag(FLAGS_compression)
            << ", core codec "
            << (pooled_gzip::CoreCodecActive() ? "active" : "not active") << ")"
            << std::endl;
#ifdef POOLED_GZIP_ECHO_METRICS
  if (exposer != nullptr) {
    std::cout << "metrics on http://127.0.0.1:"
              << exposer->GetListeningPorts().front() << "/metrics"
              << std::endl;
  }
#endif

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server->Shutdown();
  server->Wait();
  std::cout << "stopped by signal " << signal_number
            << "; pool: " << pooled_gzip::ToString(pooled_gzip::GetPoolStats())
            << std::endl;
  for (const pooled_gzip::TrafficStats& row : pooled_gzip::GetTrafficStats()) {
    // What compression cost and what it bought.
    // Declining (sent plain: not smaller) is normal for tiny messages, and
    // only compressing does it; failures are errors.
    std::cout << "traffic: " << (row.compressing ? "compress " : "decompress ")
              << row.algorithm << " " << row.backend << ": " << row.messages
              << " messages, ";
    if (row.compressing) std::cout << row.declined << " declined, ";
    std::cout << row.failed << " failed, " << row.skipped << " skipped, "
              << row.bytes_saved << " bytes saved, "
              << row.codec_nanoseconds / 1000 << " us in the codec"
              << std::endl;
  }
  return 0;
}
