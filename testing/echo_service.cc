#include "echo_service.h"

#include <grpc/compression.h>
#include <grpcpp/security/server_credentials.h>

#include <functional>
#include <memory>
#include <utility>

#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::echo {
namespace {

// Applies the request's response_encoding, if any, to the call. Returns
// false if it names an unknown algorithm.
bool ApplyResponseEncoding(const EchoRequest& request,
                           grpc::ServerContext* context) {
  if (request.response_encoding().empty()) return true;
  grpc_compression_algorithm algorithm;
  if (!ParseAlgorithm(request.response_encoding(), &algorithm)) return false;
  context->set_compression_algorithm(algorithm);
  return true;
}

grpc::Status UnknownEncoding(const EchoRequest& request) {
  return grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT,
      "unknown response_encoding: " + request.response_encoding());
}

}  // namespace

bool ParseAlgorithm(const std::string& name,
                    grpc_compression_algorithm* algorithm) {
  if (name == "none") {
    *algorithm = GRPC_COMPRESS_NONE;
    return true;
  }
  return grpc_compression_algorithm_parse(
             grpc_slice_from_static_buffer(name.data(), name.size()),
             algorithm) != 0;
}

grpc::Status EchoServiceImpl::Unary(grpc::ServerContext* context,
                                    const EchoRequest* request,
                                    EchoResponse* response) {
  if (!ApplyResponseEncoding(*request, context)) {
    return UnknownEncoding(*request);
  }
  response->set_payload(request->payload());
  return grpc::Status::OK;
}

grpc::Status EchoServiceImpl::ServerStream(
    grpc::ServerContext* context, const EchoRequest* request,
    grpc::ServerWriter<EchoResponse>* writer) {
  if (!ApplyResponseEncoding(*request, context)) {
    return UnknownEncoding(*request);
  }
  EchoResponse response;
  response.set_payload(request->payload());
  const uint32_t count = std::max<uint32_t>(request->response_count(), 1);
  for (uint32_t i = 0; i < count; ++i) {
    if (!writer->Write(response)) break;
  }
  return grpc::Status::OK;
}

grpc::Status EchoServiceImpl::ClientStream(
    grpc::ServerContext* context, grpc::ServerReader<EchoRequest>* reader,
    EchoResponse* response) {
  EchoRequest request;
  uint64_t messages = 0;
  uint64_t bytes = 0;
  while (reader->Read(&request)) {
    if (messages == 0 && !ApplyResponseEncoding(request, context)) {
      return UnknownEncoding(request);
    }
    ++messages;
    bytes += request.payload().size();
    *response->mutable_payload() = std::move(*request.mutable_payload());
  }
  response->set_received_messages(messages);
  response->set_received_bytes(bytes);
  return grpc::Status::OK;
}

grpc::Status EchoServiceImpl::Bidi(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<EchoResponse, EchoRequest>* stream) {
  EchoRequest request;
  EchoResponse response;
  bool first = true;
  while (stream->Read(&request)) {
    if (first && !ApplyResponseEncoding(request, context)) {
      return UnknownEncoding(request);
    }
    first = false;
    *response.mutable_payload() = std::move(*request.mutable_payload());
    if (!stream->Write(response)) break;
  }
  return grpc::Status::OK;
}

LoopbackServer StartLoopbackServer(
    grpc::Service* service,
    const std::function<void(grpc::ServerBuilder&)>& set_up) {
  LoopbackServer started;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &started.port);
  builder.RegisterService(service);
  set_up(builder);
  started.server = builder.BuildAndStart();
  return started;
}

RunningServer StartEchoServer(const ServerOptions& options) {
  RunningServer running;
  running.service = std::make_unique<EchoServiceImpl>();
  // The level is process-wide: an unset one must not undo Configure's.
  if (options.pooled && options.level != kDefaultLevel) {
    Options process_wide = GetOptions();
    process_wide.level = options.level;
    if (!Configure(process_wide).ok()) return running;
  }
  LoopbackServer started = StartLoopbackServer(
      running.service.get(), [&options](grpc::ServerBuilder& builder) {
        if (options.max_receive_message_bytes) {
          builder.SetMaxReceiveMessageSize(*options.max_receive_message_bytes);
        }
        builder.SetDefaultCompressionAlgorithm(options.default_algorithm);
        if (options.pooled) EnableOnServer(builder);
      });
  running.server = std::move(started.server);
  running.port = started.port;
  return running;
}

}  // namespace pooled_gzip::echo
