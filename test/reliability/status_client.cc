// One typed Echo.Unary call, gzip-compressed, on a stock gRPC channel, and
// the status it ended with, printed as one line a test can parse:
//
//   status_client --target=127.0.0.1:PORT --size=5242880
//   status: 8 Received message larger than max (5242885 vs. 4194304)
//
// It does not link pooled_gzip, so it is stock gRPC whatever the test does.

#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "echo.grpc.pb.h"
#include "payloads.h"

ABSL_FLAG(std::string, target, "", "server address");
ABSL_FLAG(int, size, 1024, "payload bytes");
ABSL_FLAG(int, max_receive_mib, 0,
          "largest response in MiB; 0: gRPC's default (4 MiB)");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  if (const int mib = absl::GetFlag(FLAGS_max_receive_mib); mib > 0) {
    args.SetMaxReceiveMessageSize(mib << 20);
  }
  auto stub = pooled_gzip::echo::Echo::NewStub(grpc::CreateCustomChannel(
      absl::GetFlag(FLAGS_target), grpc::InsecureChannelCredentials(), args));
  pooled_gzip::echo::EchoRequest request;
  // The payload tests in the same process make (echo::MakePayload).
  request.set_payload(pooled_gzip::payloads::Make(
      pooled_gzip::payloads::Kind::kWords, absl::GetFlag(FLAGS_size), 5));
  pooled_gzip::echo::EchoResponse response;
  grpc::ClientContext context;
  const grpc::Status status = stub->Unary(&context, request, &response);
  std::printf("status: %d %s\n", static_cast<int>(status.error_code()),
              status.error_message().c_str());
  return 0;
}
