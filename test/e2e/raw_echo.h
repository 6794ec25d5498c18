// Raw-mode helpers for the end-to-end tests: a server and a client that see
// each message as it came off the wire (per-message decompression off), so a
// test can tell whether the peer really sent it compressed.

#ifndef POOLED_GZIP_TEST_E2E_RAW_ECHO_H_
#define POOLED_GZIP_TEST_E2E_RAW_ECHO_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "echo.grpc.pb.h"

namespace pooled_gzip::echo {

// Echo.Unary in raw mode: records the compression and size each request
// arrived with, decodes it with the pooled reader, and encodes the reply with
// the request's response_encoding through pooled_gzip::EncodeMessage.
class RawEchoService final
    : public Echo::WithRawCallbackMethod_Unary<Echo::Service> {
 public:
  grpc::ServerUnaryReactor* Unary(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response) override;

  std::vector<grpc_compression_algorithm> received() const;
  // Bytes of the last request as it came off the wire.
  size_t last_wire_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::vector<grpc_compression_algorithm> received_;
  size_t last_wire_bytes_ = 0;
};

struct RawServer {
  std::unique_ptr<RawEchoService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::string target() const { return "127.0.0.1:" + std::to_string(port); }
};

// `with_plugin` also installs EnableOnServer, which must pass the already
// compressed replies through untouched.
RawServer StartRawServer(bool with_plugin);

// Calls Echo.Unary with `request` as is and returns the reply as it came off
// the wire when `channel` was made with per-message decompression off.
grpc::Status RawUnary(const std::shared_ptr<grpc::Channel>& channel,
                      grpc::ClientContext* context,
                      const grpc::ByteBuffer& request,
                      grpc::ByteBuffer* response);

// Channel arguments with gRPC's own decompression of received messages off.
grpc::ChannelArguments RawModeArgs();

// A serialized EchoRequest as an uncompressed buffer.
grpc::ByteBuffer Serialized(const EchoRequest& request);

}  // namespace pooled_gzip::echo

#endif  // POOLED_GZIP_TEST_E2E_RAW_ECHO_H_
