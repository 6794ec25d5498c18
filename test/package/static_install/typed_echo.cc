// A typed echo service and its client in one process, built against the
// static flavour as docs/packaging.md installs it (scripts/
// library_install_check.sh): through CMake, with gRPC's reflection add-on
// linked as well (WITH_REFLECTION), and through pkg-config. gzip calls both
// ways must be served by the pools with the core codec seen active.
//
//   typed_echo   exits 0 when every check passes.

#include <grpcpp/grpcpp.h>
#include <pooled_gzip/pooled_gzip.h>

#ifdef WITH_REFLECTION
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#endif

#include <iostream>
#include <memory>
#include <string>

#include "echo.grpc.pb.h"

namespace {

using pooled_gzip::echo::Echo;
using pooled_gzip::echo::EchoRequest;
using pooled_gzip::echo::EchoResponse;

class EchoService final : public Echo::Service {
  grpc::Status Unary(grpc::ServerContext* context, const EchoRequest* request,
                     EchoResponse* response) override {
    context->set_compression_algorithm(GRPC_COMPRESS_GZIP);
    response->set_payload(request->payload());
    return grpc::Status::OK;
  }
};

constexpr int kCalls = 50;

}  // namespace

int main() {
#ifdef WITH_REFLECTION
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
#endif
  EchoService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  pooled_gzip::EnableOnServer(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) return 1;

  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  auto stub = Echo::NewStub(
      pooled_gzip::CreateChannel("127.0.0.1:" + std::to_string(port),
                                 grpc::InsecureChannelCredentials(), args));
  std::string payload;
  while (payload.size() < 32 * 1024) payload += "a record of a typed call; ";
  int echoed = 0;
  for (int i = 0; i < kCalls; ++i) {
    grpc::ClientContext context;
    EchoRequest request;
    request.set_payload(payload);
    EchoResponse response;
    if (stub->Unary(&context, request, &response).ok() &&
        response.payload() == payload) {
      ++echoed;
    }
  }
  server->Shutdown();
  const pooled_gzip::PoolStats pool = pooled_gzip::GetPoolStats();
  const bool active = pooled_gzip::CoreCodecActive();
  const bool pooled =
      pool.writers.created + pool.writers.reused >= 2 * kCalls &&
      pool.readers.created + pool.readers.reused >= 2 * kCalls &&
      pool.writers.reused > 0 && pool.readers.reused > 0;
  std::cout << "typed calls echoed: " << echoed << "/" << kCalls
            << "; core codec " << (active ? "active" : "NOT active")
            << "; pool: " << pooled_gzip::ToString(pool) << std::endl;
  return echoed == kCalls && active && pooled ? 0 : 1;
}
