#include "e2e_modes.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::bench {
namespace {

echo::ServerOptions ServerOptionsFor(Mode mode) {
  echo::ServerOptions options;
  options.pooled = mode == Mode::kPooled;
  options.default_algorithm =
      mode == Mode::kNone ? GRPC_COMPRESS_NONE : GRPC_COMPRESS_GZIP;
  return options;
}

std::shared_ptr<grpc::Channel> ChannelFor(Mode mode, int port) {
  const std::string target = "127.0.0.1:" + std::to_string(port);
  grpc::ChannelArguments args;
  // The echo server accepts 64 MiB; the client matches it so the largest
  // benchmark size is nowhere near a limit in any mode.
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  if (mode != Mode::kNone) args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  auto credentials = grpc::InsecureChannelCredentials();
  return mode == Mode::kPooled
             ? pooled_gzip::CreateChannel(target, credentials, args)
             : grpc::CreateCustomChannel(target, credentials, args);
}

}  // namespace

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kNone:
      return "none";
    case Mode::kStock:
      return "stock";
    case Mode::kPooled:
      return "pooled";
  }
  return "?";
}

bool Endpoints::Start() {
  for (Mode mode : kAllModes) {
    Endpoint& e = endpoint(mode);
    e.server = echo::StartEchoServer(ServerOptionsFor(mode));
    if (e.server.server == nullptr || e.server.port == 0) {
      std::fprintf(stderr, "e2e_bench: could not start the %s server\n",
                   ModeName(mode));
      return false;
    }
    e.channel = ChannelFor(mode, e.server.port);
    if (!e.channel->WaitForConnected(std::chrono::system_clock::now() +
                                     std::chrono::seconds(10))) {
      std::fprintf(stderr, "e2e_bench: the %s channel did not connect\n",
                   ModeName(mode));
      return false;
    }
    e.stub = echo::Echo::NewStub(e.channel);
  }
  return true;
}

void Endpoints::Shutdown() {
  for (Endpoint& e : endpoints_) {
    e.stub.reset();
    e.channel.reset();
    if (e.server.server != nullptr) {
      e.server.server->Shutdown(std::chrono::system_clock::now() +
                                std::chrono::seconds(1));
    }
  }
}

}  // namespace pooled_gzip::bench
