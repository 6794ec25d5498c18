#include "test_service.h"

#include <grpc/grpc.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include <deque>
#include <string>
#include <utility>

#include "grpc/testing/empty.pb.h"
#include "grpc/testing/messages.pb.h"
#include "pooled_gzip/raw_mode.h"

namespace pooled_gzip::interop {
namespace {

constexpr char kPrefix[] = "/grpc.testing.TestService/";

enum class Method { kEmpty, kUnary, kStreamingInput, kStreamingOutput, kOther };

Method MethodOf(const std::string& path) {
  const std::string prefix = kPrefix;
  if (path.rfind(prefix, 0) != 0) return Method::kOther;
  const std::string name = path.substr(prefix.size());
  if (name == "EmptyCall") return Method::kEmpty;
  if (name == "UnaryCall") return Method::kUnary;
  if (name == "StreamingInputCall") return Method::kStreamingInput;
  if (name == "StreamingOutputCall") return Method::kStreamingOutput;
  return Method::kOther;
}

// The CompressedRequest feature: a request carrying expect_compressed must
// have arrived compressed exactly when it says so.
grpc::Status CheckExpectation(const grpc::testing::BoolValue* expected,
                              bool has_expected, bool was_compressed) {
  if (!has_expected || expected->value() == was_compressed) {
    return grpc::Status::OK;
  }
  return grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT,
      std::string("Compressed request expectation not met: expected ") +
          (expected->value() ? "compressed" : "uncompressed"));
}

grpc::testing::Payload Zeros(int size) {
  grpc::testing::Payload payload;
  payload.set_body(std::string(size > 0 ? size : 0, '\0'));
  return payload;
}

// One call. Reads requests, then writes the responses queued in `out_` one
// after another, then finishes with `final_`.
class CallReactor final : public grpc::ServerGenericBidiReactor {
 public:
  CallReactor(grpc::GenericCallbackServerContext* context, Method method)
      : context_(context), method_(method) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      HalfClosed();
      return;
    }
    grpc::Status status = Handle();
    if (!status.ok()) {
      Finish(status);
      return;
    }
    if (method_ == Method::kStreamingInput) {
      StartRead(&request_);
    } else {
      SendQueued();
    }
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "write failed"));
      return;
    }
    SendQueued();
  }

  void OnDone() override { delete this; }

 private:
  struct Outgoing {
    grpc::ByteBuffer buffer;
    grpc::WriteOptions options;
  };

  // Handles one received request; queues responses.
  grpc::Status Handle() {
    const bool compressed = ReceivedCompression(request_) != GRPC_COMPRESS_NONE;
    switch (method_) {
      case Method::kEmpty:
        return Queue(grpc::testing::Empty(), false);
      case Method::kUnary:
        return HandleUnary(compressed);
      case Method::kStreamingInput:
        return HandleStreamingInput(compressed);
      case Method::kStreamingOutput:
        return HandleStreamingOutput();
      case Method::kOther:
        break;
    }
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "");
  }

  grpc::Status HandleUnary(bool was_compressed) {
    grpc::testing::SimpleRequest request;
    grpc::Status status = DecodeMessage(request_, &request);
    if (!status.ok()) return status;
    status = CheckExpectation(&request.expect_compressed(),
                              request.has_expect_compressed(), was_compressed);
    if (!status.ok()) return status;
    const bool compress = request.response_compressed().value();
    if (compress) context_->set_compression_algorithm(GRPC_COMPRESS_GZIP);
    grpc::testing::SimpleResponse response;
    *response.mutable_payload() = Zeros(request.response_size());
    return Queue(response, compress);
  }

  grpc::Status HandleStreamingInput(bool was_compressed) {
    grpc::testing::StreamingInputCallRequest request;
    grpc::Status status = DecodeMessage(request_, &request);
    if (!status.ok()) return status;
    status = CheckExpectation(&request.expect_compressed(),
                              request.has_expect_compressed(), was_compressed);
    if (!status.ok()) return status;
    aggregated_size_ += static_cast<int>(request.payload().body().size());
    return grpc::Status::OK;
  }

  grpc::Status HandleStreamingOutput() {
    grpc::testing::StreamingOutputCallRequest request;
    grpc::Status status = DecodeMessage(request_, &request);
    if (!status.ok()) return status;
    // The call's algorithm is fixed by the first response's headers, so it
    // is gzip if any response is to be compressed; the others then go out
    // with the no-compression write flag.
    for (const auto& parameters : request.response_parameters()) {
      if (parameters.compressed().value()) {
        context_->set_compression_algorithm(GRPC_COMPRESS_GZIP);
      }
    }
    for (const auto& parameters : request.response_parameters()) {
      grpc::testing::StreamingOutputCallResponse response;
      *response.mutable_payload() = Zeros(parameters.size());
      status = Queue(response, parameters.compressed().value());
      if (!status.ok()) return status;
    }
    return grpc::Status::OK;
  }

  void HalfClosed() {
    if (method_ != Method::kStreamingInput) {
      // Only reached by a unary-request call that carried no request.
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request"));
      return;
    }
    grpc::testing::StreamingInputCallResponse response;
    response.set_aggregated_payload_size(aggregated_size_);
    grpc::Status status = Queue(response, false);
    if (!status.ok()) {
      Finish(status);
      return;
    }
    SendQueued();
  }

  // Compressed responses are encoded from the pool and flagged by core as
  // they are; plain ones carry the no-compression flag so that core leaves
  // them alone even when the call's algorithm is gzip.
  grpc::Status Queue(const google::protobuf::MessageLite& message,
                     bool compress) {
    Outgoing& outgoing = out_.emplace_back();
    if (!compress) outgoing.options.set_no_compression();
    return EncodeMessage(message,
                         compress ? GRPC_COMPRESS_GZIP : GRPC_COMPRESS_NONE,
                         &outgoing.buffer);
  }

  void SendQueued() {
    if (next_ < out_.size()) {
      Outgoing& outgoing = out_[next_++];
      StartWrite(&outgoing.buffer, outgoing.options);
    } else {
      Finish(grpc::Status::OK);
    }
  }

  grpc::GenericCallbackServerContext* context_;
  const Method method_;
  grpc::ByteBuffer request_;
  int aggregated_size_ = 0;
  // StartWrite needs each buffer alive until OnWriteDone; a deque keeps
  // them in place as entries are added.
  std::deque<Outgoing> out_;
  size_t next_ = 0;
};

}  // namespace

grpc::ServerGenericBidiReactor* TestService::CreateReactor(
    grpc::GenericCallbackServerContext* context) {
  const Method method = MethodOf(context->method());
  if (method == Method::kOther) {
    return grpc::CallbackGenericService::CreateReactor(context);
  }
  return new CallReactor(context, method);
}

RunningTestServer StartTestServer(int port) {
  RunningTestServer running;
  running.service = std::make_unique<TestService>();
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:" + std::to_string(port),
                           grpc::InsecureServerCredentials(), &running.port);
  // Raw mode: received messages stay as they came, marked with their
  // compression, for ReceivedCompression and the pooled DecodeMessage.
  builder.AddChannelArgument(GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION, 0);
  builder.RegisterCallbackGenericService(running.service.get());
  running.server = builder.BuildAndStart();
  return running;
}

}  // namespace pooled_gzip::interop
