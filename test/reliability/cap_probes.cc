#include "cap_probes.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include "echo.grpc.pb.h"
#include "echo_client_lib.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::reliability {

std::shared_ptr<grpc::Channel> PlainChannel(
    int port, std::optional<int> max_receive_bytes) {
  grpc::ChannelArguments args;
  if (max_receive_bytes) args.SetMaxReceiveMessageSize(*max_receive_bytes);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials(), args);
}

grpc::Status GzipEcho(const std::shared_ptr<grpc::Channel>& channel,
                      size_t size) {
  auto stub = echo::Echo::NewStub(channel);
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  echo::EchoRequest request;
  request.set_payload(echo::MakePayload(size, 5));
  echo::EchoResponse response;
  grpc::Status status = stub->Unary(&context, request, &response);
  if (status.ok() && response.payload() != request.payload()) {
    return grpc::Status(grpc::StatusCode::DATA_LOSS, "echo differs");
  }
  return status;
}

}  // namespace pooled_gzip::reliability
