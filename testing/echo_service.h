// The echo service the tests and the benchmarks run in process (the example
// server defines its own, examples/echo_server.cc).

#ifndef POOLED_GZIP_TESTING_ECHO_SERVICE_H_
#define POOLED_GZIP_TESTING_ECHO_SERVICE_H_

#include <grpcpp/server_builder.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "echo.grpc.pb.h"

namespace pooled_gzip::echo {

class EchoServiceImpl final : public Echo::Service {
 public:
  grpc::Status Unary(grpc::ServerContext* context, const EchoRequest* request,
                     EchoResponse* response) override;
  grpc::Status ServerStream(grpc::ServerContext* context,
                            const EchoRequest* request,
                            grpc::ServerWriter<EchoResponse>* writer) override;
  grpc::Status ClientStream(grpc::ServerContext* context,
                            grpc::ServerReader<EchoRequest>* reader,
                            EchoResponse* response) override;
  grpc::Status Bidi(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<EchoResponse, EchoRequest>* stream) override;
};

// A server on a free port of 127.0.0.1.
struct LoopbackServer {
  std::unique_ptr<grpc::Server> server;  // null if it did not start
  int port = 0;
  std::string target() const { return "127.0.0.1:" + std::to_string(port); }
};

// Starts a server of `service` on a free loopback port; `set_up` sees the
// builder last, before it builds (the test's own settings, interceptors,
// EnableOnServer).
LoopbackServer StartLoopbackServer(
    grpc::Service* service,
    const std::function<void(grpc::ServerBuilder&)>& set_up);

// How the echo server compresses its responses.
struct ServerOptions {
  bool pooled = true;  // false: stock gRPC compression
  grpc_compression_algorithm default_algorithm = GRPC_COMPRESS_NONE;
  int level = -1;  // pooled mode only
  // Largest request accepted; unset: gRPC's default, 4 MiB.
  std::optional<int> max_receive_message_bytes;
};

// A running echo server, on a free loopback port, and the port it got.
struct RunningServer {
  std::unique_ptr<EchoServiceImpl> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

RunningServer StartEchoServer(const ServerOptions& options);

// Parses "none"/"identity", "gzip" or "deflate"; false for anything else.
bool ParseAlgorithm(const std::string& name,
                    grpc_compression_algorithm* algorithm);

}  // namespace pooled_gzip::echo

#endif  // POOLED_GZIP_TESTING_ECHO_SERVICE_H_
