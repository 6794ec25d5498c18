// On the interceptor path, a raw-mode buffer compressed with another
// algorithm than its call's is decoded before it goes out. When it cannot
// be decoded, the call is cancelled on the side that sent it: the message
// never reaches the peer flagged under the wrong grpc-encoding.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "echo.grpc.pb.h"
#include "echo_service.h"
#include "hostile_inputs.h"
#include "pooled_gzip/pooled_gzip.h"
#include "raw_echo.h"

namespace pooled_gzip::reliability {
namespace {

// Gzip's header and a body that is not deflate.
grpc::ByteBuffer CorruptGzip() {
  return FlaggedBuffer(
      std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10) + std::string(64, '\xff'),
      GRPC_COMPRESS_GZIP);
}

// Replies to every call with CorruptGzip() under the deflate algorithm.
class CorruptReplyService final
    : public echo::Echo::WithRawCallbackMethod_Unary<echo::Echo::Service> {
 public:
  grpc::ServerUnaryReactor* Unary(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* /*request*/,
                                  grpc::ByteBuffer* response) override {
    context->set_compression_algorithm(GRPC_COMPRESS_DEFLATE);
    *response = CorruptGzip();
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

class UndecodableRawBufferTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(InstallCoreCodec()) << "these cases are of the interceptor";
  }
};

TEST_F(UndecodableRawBufferTest, ClientCancelsItsCall) {
  echo::RawServer raw = echo::StartRawServer(/*with_plugin=*/false);
  auto channel =
      CreateChannel(raw.target(), grpc::InsecureChannelCredentials(), {});
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_DEFLATE);
  grpc::ByteBuffer reply;
  const grpc::Status status =
      echo::RawUnary(channel, &context, CorruptGzip(), &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED)
      << status.error_message();
  EXPECT_TRUE(raw.service->received().empty());
  raw.server->Shutdown();
}

TEST_F(UndecodableRawBufferTest, ServerCancelsItsCall) {
  CorruptReplyService service;
  const echo::LoopbackServer server = echo::StartLoopbackServer(
      &service, [](grpc::ServerBuilder& builder) { EnableOnServer(builder); });
  ASSERT_NE(server.server, nullptr);
  auto stub = echo::Echo::NewStub(
      grpc::CreateChannel(server.target(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  echo::EchoRequest request;
  request.set_payload("hello");
  echo::EchoResponse response;
  const grpc::Status status = stub->Unary(&context, request, &response);
  // Not an error of decompression at the client: the server never sent it.
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED)
      << status.error_message();
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
