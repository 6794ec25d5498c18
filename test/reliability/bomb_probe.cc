// On demand, not a test: sends the zero bomb to an in-process server over
// loopback and reports what the server made of it, and the peak RSS of the
// call. Documents what stock gRPC core does with a bomb on the typed path,
// next to the plugin's raw-mode decoder:
//
//   bomb_probe --server=stock_typed --zeros_mib=1024
//   bomb_probe --server=pooled_raw --zeros_mib=1024
//
// The address-space cap keeps a runaway inflate from taking the machine down
// with it: past it the probe aborts instead.

#include <sys/resource.h>

#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "hostile_inputs.h"
#include "pooled_gzip/pooled_gzip.h"
#include "process_memory.h"
#include "raw_echo.h"

ABSL_FLAG(std::string, server, "stock_typed",
          "stock_typed: gRPC's own decompression and a typed Echo service, "
          "as any stock server; pooled_raw: per-message decompression off "
          "and pooled_gzip::DecodeMessage with its 4 MiB default limit");
ABSL_FLAG(int, zeros_mib, 1024, "MiB of zeros inside the bomb");
ABSL_FLAG(int, max_receive_mib, 4,
          "the server's max receive message size (gRPC's default is 4)");
ABSL_FLAG(int, address_space_gib, 8, "RLIMIT_AS for this process; 0: none");

namespace pooled_gzip::reliability {
namespace {

using internal::Format;

int Run() {
  if (const int gib = absl::GetFlag(FLAGS_address_space_gib); gib > 0) {
    const rlimit limit{static_cast<rlim_t>(gib) << 30, static_cast<rlim_t>(gib)
                                                           << 30};
    setrlimit(RLIMIT_AS, &limit);
  }
  const std::string kind = absl::GetFlag(FLAGS_server);
  echo::EchoServiceImpl typed_service;
  echo::RawServer raw;
  std::unique_ptr<grpc::Server> typed_server;
  std::string target;
  if (kind == "stock_typed") {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(&typed_service);
    builder.SetMaxReceiveMessageSize(absl::GetFlag(FLAGS_max_receive_mib)
                                     << 20);
    typed_server = builder.BuildAndStart();
    target = "127.0.0.1:" + std::to_string(port);
  } else if (kind == "pooled_raw") {
    raw = echo::StartRawServer(/*with_plugin=*/true);
    target = raw.target();
  } else {
    std::fprintf(stderr, "unknown --server=%s\n", kind.c_str());
    return 2;
  }
  const size_t zeros = size_t(absl::GetFlag(FLAGS_zeros_mib)) * kMiB;
  const std::string bomb = ZeroBomb(zeros, Format::kGzip);
  auto channel =
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  auto stub = echo::Echo::NewStub(channel);
  auto echo_once = [&stub] {
    grpc::ClientContext context;
    echo::EchoRequest request;
    request.set_payload("still serving");
    echo::EchoResponse response;
    return stub->Unary(&context, request, &response);
  };
  if (!echo_once().ok()) return 1;  // connected and warm before measuring

  const FlaggedCall call = SendFlaggedGzip(channel, bomb);
  const grpc::Status& status = call.status;
  std::printf("bomb_probe: server=%s, %zu bytes of gzip inflating to %d MiB\n",
              kind.c_str(), bomb.size(), absl::GetFlag(FLAGS_zeros_mib));
  std::printf("bomb_probe: status %d (%s)\n", status.error_code(),
              status.error_message().c_str());
  std::printf(
      "bomb_probe: RSS before %.1f MiB, peak during the call %.1f "
      "MiB (+%.1f MiB)\n",
      call.rss_before / double(kMiB), call.peak_rss / double(kMiB),
      call.PeakGrowth() / double(kMiB));
  const grpc::Status after = echo_once();
  std::printf("bomb_probe: next call %s\n",
              after.ok() ? "OK" : after.error_message().c_str());
  if (typed_server) typed_server->Shutdown();
  if (raw.server) raw.server->Shutdown();
  return 0;
}

}  // namespace
}  // namespace pooled_gzip::reliability

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return pooled_gzip::reliability::Run();
}
