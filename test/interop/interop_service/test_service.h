// grpc.testing.TestService on pooled-gzip in raw mode, for the interop
// compression cases (client_compressed_unary, server_compressed_unary,
// client_compressed_streaming, server_compressed_streaming).
//
// The server must know, per received message, whether it came compressed,
// and must send some responses of one call compressed and others not. Typed
// services cannot do either, so this is a callback generic service on a
// server built with "grpc.per_message_decompression" = 0: every request
// arrives as it came off the wire, pooled_gzip::ReceivedCompression tells
// whether it was compressed, and pooled_gzip::DecodeMessage inflates it from
// the pool. Compressed responses are made by pooled_gzip::EncodeMessage.
//
// The server deliberately does not call pooled_gzip::EnableOnServer: its
// interceptor compresses every plain message of a gzip call, and the
// uncompressed response of server_compressed_streaming is exactly such a
// message (sent with WriteOptions::set_no_compression(), which interceptors
// cannot see).

#ifndef POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_TEST_SERVICE_H_
#define POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_TEST_SERVICE_H_

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/server.h>

#include <memory>

namespace pooled_gzip::interop {

class TestService final : public grpc::CallbackGenericService {
 public:
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override;
};

struct RunningTestServer {
  std::unique_ptr<TestService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

// Listens on 127.0.0.1:`port` (0 picks one).
RunningTestServer StartTestServer(int port);

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_TEST_SERVICE_H_
