#include "compression_cases.h"

#include <grpc/grpc.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>

#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "blocking_call.h"
#include "grpc/testing/messages.pb.h"
#include "pooled_gzip/raw_mode.h"

namespace pooled_gzip::interop {
namespace {

using grpc::testing::SimpleRequest;
using grpc::testing::SimpleResponse;
using grpc::testing::StreamingInputCallRequest;
using grpc::testing::StreamingInputCallResponse;
using grpc::testing::StreamingOutputCallRequest;
using grpc::testing::StreamingOutputCallResponse;

constexpr char kUnaryCall[] = "/grpc.testing.TestService/UnaryCall";
constexpr char kStreamingInputCall[] =
    "/grpc.testing.TestService/StreamingInputCall";
constexpr char kStreamingOutputCall[] =
    "/grpc.testing.TestService/StreamingOutputCall";

absl::Status Failed(const std::string& what) {
  return absl::InternalError(what);
}

absl::Status FromGrpc(const grpc::Status& status, const std::string& what) {
  if (status.ok()) return absl::OkStatus();
  return Failed(absl::StrCat(what, ": status ", status.error_code(), " ",
                             status.error_message()));
}

// One message as the cases send it: compressed from the pool, or plain with
// the no-compression flag so that core sends it as it is even on a gzip call.
struct Outgoing {
  grpc::ByteBuffer buffer;
  grpc::WriteOptions options;
};

absl::Status Encode(const google::protobuf::MessageLite& message, bool compress,
                    Outgoing* out) {
  if (!compress) out->options.set_no_compression();
  return FromGrpc(
      EncodeMessage(message, compress ? GRPC_COMPRESS_GZIP : GRPC_COMPRESS_NONE,
                    &out->buffer),
      "encode");
}

SimpleRequest LargeRequest() {
  SimpleRequest request;
  request.set_response_size(314159);
  request.mutable_payload()->set_body(std::string(271828, '\0'));
  return request;
}

// A unary call of `method` through the generic stub. `compress`: the call's
// algorithm is gzip and the request goes out compressed.
grpc::Status RawUnary(grpc::GenericStub* stub, const char* method,
                      const google::protobuf::MessageLite& request,
                      bool compress, grpc::ByteBuffer* response) {
  grpc::ClientContext context;
  if (compress) context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  Outgoing outgoing;
  absl::Status encoded = Encode(request, compress, &outgoing);
  if (!encoded.ok()) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        std::string(encoded.message()));
  }
  BlockingCall call(stub, method, &context);
  if (call.Write(outgoing.buffer, outgoing.options) && call.WritesDone()) {
    call.Read(response);
  }
  return call.Finish();
}

absl::Status ExpectFlag(const grpc::ByteBuffer& response, bool compressed,
                        const std::string& what) {
  const bool flagged = ReceivedCompression(response) != GRPC_COMPRESS_NONE;
  if (flagged == compressed) return absl::OkStatus();
  return Failed(absl::StrCat(what, ": response ", flagged ? "has" : "lacks",
                             " the compressed flag"));
}

template <typename Message>
absl::Status Decode(const grpc::ByteBuffer& buffer, Message* message,
                    const std::string& what) {
  return FromGrpc(DecodeMessage(buffer, message), what + ": decode");
}

// A response that decodes as `Message`, with a body of `size` bytes.
template <typename Message>
absl::Status ExpectBodySize(const grpc::ByteBuffer& response, size_t size,
                            const std::string& what) {
  Message decoded;
  absl::Status status = Decode(response, &decoded, what);
  if (!status.ok()) return status;
  if (decoded.payload().body().size() != size) {
    return Failed(what + ": body size");
  }
  return absl::OkStatus();
}

absl::Status ClientCompressedUnary(grpc::GenericStub* stub) {
  SimpleRequest request = LargeRequest();
  request.mutable_expect_compressed()->set_value(true);
  grpc::ByteBuffer response;
  grpc::Status probe = RawUnary(stub, kUnaryCall, request, false, &response);
  if (probe.error_code() != grpc::StatusCode::INVALID_ARGUMENT) {
    return Failed(
        absl::StrCat("probe: want INVALID_ARGUMENT, got ", probe.error_code()));
  }
  for (const bool compress : {true, false}) {
    const std::string what = compress ? "compressed call" : "uncompressed call";
    request.mutable_expect_compressed()->set_value(compress);
    absl::Status status = FromGrpc(
        RawUnary(stub, kUnaryCall, request, compress, &response), what);
    if (!status.ok()) return status;
    status = ExpectBodySize<SimpleResponse>(response, 314159, what);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ServerCompressedUnary(grpc::GenericStub* stub) {
  for (const bool compressed : {true, false}) {
    const std::string what =
        absl::StrCat("response_compressed=", compressed ? "true" : "false");
    SimpleRequest request = LargeRequest();
    request.mutable_response_compressed()->set_value(compressed);
    grpc::ByteBuffer response;
    absl::Status status =
        FromGrpc(RawUnary(stub, kUnaryCall, request, false, &response), what);
    if (!status.ok()) return status;
    status = ExpectFlag(response, compressed, what);
    if (!status.ok()) return status;
    status = ExpectBodySize<SimpleResponse>(response, 314159, what);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

StreamingInputCallRequest InputRequest(bool expect_compressed, int size) {
  StreamingInputCallRequest request;
  request.mutable_expect_compressed()->set_value(expect_compressed);
  request.mutable_payload()->set_body(std::string(size, '\0'));
  return request;
}

absl::Status ClientCompressedStreaming(grpc::GenericStub* stub) {
  {
    grpc::ByteBuffer response;
    grpc::Status probe = RawUnary(stub, kStreamingInputCall,
                                  InputRequest(true, 27182), false, &response);
    if (probe.error_code() != grpc::StatusCode::INVALID_ARGUMENT) {
      return Failed(absl::StrCat("probe: want INVALID_ARGUMENT, got ",
                                 probe.error_code()));
    }
  }
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  Outgoing first;
  Outgoing second;
  absl::Status status = Encode(InputRequest(true, 27182), true, &first);
  if (status.ok()) status = Encode(InputRequest(false, 45904), false, &second);
  if (!status.ok()) return status;
  BlockingCall call(stub, kStreamingInputCall, &context);
  grpc::ByteBuffer response;
  if (call.Write(first.buffer, first.options) &&
      call.Write(second.buffer, second.options) && call.WritesDone()) {
    call.Read(&response);
  }
  status = FromGrpc(call.Finish(), "streaming call");
  if (!status.ok()) return status;
  StreamingInputCallResponse decoded;
  status = Decode(response, &decoded, "streaming call");
  if (!status.ok()) return status;
  if (decoded.aggregated_payload_size() != 73086) {
    return Failed(absl::StrCat("aggregated_payload_size ",
                               decoded.aggregated_payload_size()));
  }
  return absl::OkStatus();
}

absl::Status ServerCompressedStreaming(grpc::GenericStub* stub) {
  const int sizes[] = {31415, 92653};
  const bool compressed[] = {true, false};
  StreamingOutputCallRequest request;
  for (int i = 0; i < 2; ++i) {
    auto* parameters = request.add_response_parameters();
    parameters->set_size(sizes[i]);
    parameters->mutable_compressed()->set_value(compressed[i]);
  }
  Outgoing outgoing;
  absl::Status status = Encode(request, false, &outgoing);
  if (!status.ok()) return status;
  grpc::ClientContext context;
  BlockingCall call(stub, kStreamingOutputCall, &context);
  if (!call.Write(outgoing.buffer, outgoing.options) || !call.WritesDone()) {
    return FromGrpc(call.Finish(), "request");
  }
  int received = 0;
  for (grpc::ByteBuffer response; call.Read(&response); ++received) {
    const std::string what = absl::StrCat("response ", received);
    if (received >= 2) return Failed("more than two responses");
    status = ExpectFlag(response, compressed[received], what);
    if (!status.ok()) return status;
    status = ExpectBodySize<StreamingOutputCallResponse>(
        response, static_cast<size_t>(sizes[received]), what);
    if (!status.ok()) return status;
  }
  status = FromGrpc(call.Finish(), "streaming call");
  if (!status.ok()) return status;
  if (received != 2) return Failed(absl::StrCat(received, " responses"));
  return absl::OkStatus();
}

using Case = std::function<absl::Status(grpc::GenericStub*)>;

const std::map<std::string, Case>& Cases() {
  static const auto* cases = new std::map<std::string, Case>{
      {"client_compressed_unary", ClientCompressedUnary},
      {"server_compressed_unary", ServerCompressedUnary},
      {"client_compressed_streaming", ClientCompressedStreaming},
      {"server_compressed_streaming", ServerCompressedStreaming},
  };
  return *cases;
}

}  // namespace

const std::vector<std::string>& CompressionCaseNames() {
  static const auto* names = new std::vector<std::string>{
      "client_compressed_unary", "server_compressed_unary",
      "client_compressed_streaming", "server_compressed_streaming"};
  return *names;
}

std::shared_ptr<grpc::Channel> MakeRawModeChannel(const std::string& target) {
  grpc::ChannelArguments args;
  // Responses stay as they came off the wire, so that the client can see
  // which were compressed and inflate them from the pool.
  args.SetInt(GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION, 0);
  // A stock channel, not pooled_gzip::CreateChannel: its interceptor would
  // compress the plain message that client_compressed_streaming must send
  // uncompressed on a gzip call (write flags are invisible to interceptors).
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(),
                                   args);
}

absl::Status RunCompressionCase(const std::string& name,
                                const std::shared_ptr<grpc::Channel>& channel) {
  auto found = Cases().find(name);
  if (found == Cases().end()) {
    return absl::InvalidArgumentError("unknown test case " + name);
  }
  grpc::GenericStub stub(channel);
  return found->second(&stub);
}

}  // namespace pooled_gzip::interop
