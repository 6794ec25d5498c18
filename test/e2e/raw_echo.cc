#include "raw_echo.h"

#include <grpcpp/generic/generic_stub.h>

#include <future>
#include <utility>

#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::echo {

grpc::ServerUnaryReactor* RawEchoService::Unary(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    received_.push_back(ReceivedCompression(*request));
    last_wire_bytes_ = request->Length();
  }
  EchoRequest echo_request;
  grpc::Status status = DecodeMessage(*request, &echo_request);
  if (!status.ok()) {
    reactor->Finish(status);
    return reactor;
  }
  grpc_compression_algorithm algorithm = GRPC_COMPRESS_NONE;
  if (!echo_request.response_encoding().empty() &&
      !ParseAlgorithm(echo_request.response_encoding(), &algorithm)) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "unknown response_encoding"));
    return reactor;
  }
  // The call's algorithm must match what the buffer is compressed with.
  context->set_compression_algorithm(algorithm);
  EchoResponse echo_response;
  echo_response.set_payload(echo_request.payload());
  reactor->Finish(EncodeMessage(echo_response, algorithm, response));
  return reactor;
}

size_t RawEchoService::last_wire_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_wire_bytes_;
}

std::vector<grpc_compression_algorithm> RawEchoService::received() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return received_;
}

RawServer StartRawServer(bool with_plugin) {
  RawServer raw;
  raw.service = std::make_unique<RawEchoService>();
  LoopbackServer started = StartLoopbackServer(
      raw.service.get(), [with_plugin](grpc::ServerBuilder& builder) {
        builder.AddChannelArgument(GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION,
                                   0);
        if (with_plugin) EnableOnServer(builder);
      });
  raw.server = std::move(started.server);
  raw.port = started.port;
  return raw;
}

grpc::Status RawUnary(const std::shared_ptr<grpc::Channel>& channel,
                      grpc::ClientContext* context,
                      const grpc::ByteBuffer& request,
                      grpc::ByteBuffer* response) {
  grpc::GenericStub stub(channel);
  std::promise<grpc::Status> done;
  stub.UnaryCall(context, "/pooled_gzip.echo.Echo/Unary", grpc::StubOptions(),
                 &request, response,
                 [&done](grpc::Status status) { done.set_value(status); });
  return done.get_future().get();
}

grpc::ChannelArguments RawModeArgs() {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION, 0);
  return args;
}

grpc::ByteBuffer Serialized(const EchoRequest& request) {
  const std::string bytes = request.SerializeAsString();
  grpc::Slice slice(bytes.data(), bytes.size());
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace pooled_gzip::echo
