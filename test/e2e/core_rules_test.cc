// gRPC's own compression rules hold with the plugin, on the core codec
// (where core applies them itself) and on the interceptor path (which
// mirrors them): minimal stacks, send limits, the algorithm of each call,
// user interceptor lists. CTest runs each case on both paths, and each path
// must be the one it was registered for (registered_path.h).

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/version_info.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "each_decoder.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"
#include "raw_echo.h"
#include "registered_path.h"
#include "traffic_totals.h"

namespace pooled_gzip::echo {
namespace {

using test_support::RegisteredForCoreCodec;

[[maybe_unused]] const bool kPathChecked = test_support::CheckRegisteredPath();

EchoRequest Request(size_t size) {
  EchoRequest request;
  request.set_payload(MakePayload(size, 11));
  return request;
}

// One typed call on a pooled channel made with `args` (gzip by default).
grpc::Status Call(const RawServer& raw, grpc::ChannelArguments args,
                  size_t size, ClientInterceptorFactories interceptors = {}) {
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  auto stub = Echo::NewStub(CreateChannel(raw.target(),
                                          grpc::InsecureChannelCredentials(),
                                          args, std::move(interceptors)));
  grpc::ClientContext context;
  EchoResponse response;
  const EchoRequest request = Request(size);
  grpc::Status status = stub->Unary(&context, request, &response);
  if (status.ok()) {
    EXPECT_EQ(response.payload(), request.payload());
  }
  return status;
}

class CoreRulesTest : public testing::Test {
 protected:
  void SetUp() override { raw_ = StartRawServer(/*with_plugin=*/false); }
  void TearDown() override { raw_.server->Shutdown(); }
  grpc_compression_algorithm Arrived() const {
    return raw_.service->received().back();
  }
  RawServer raw_;
};

// gRPC 1.51's minimal stack has no compression filter: core sends no
// grpc-encoding, so no message may be flagged. 1.83's keeps the filter, and
// the call's gzip applies as on any stack. Chosen by the gRPC this test is
// built against.
#if GRPC_CPP_VERSION_MAJOR == 1 && GRPC_CPP_VERSION_MINOR < 83
constexpr grpc_compression_algorithm kOnMinimalStack = GRPC_COMPRESS_NONE;
#else
constexpr grpc_compression_algorithm kOnMinimalStack = GRPC_COMPRESS_GZIP;
#endif

TEST_F(CoreRulesTest, MinimalStackCompressesAsCoreDoes) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_MINIMAL_STACK, 1);
  ASSERT_TRUE(Call(raw_, args, 4096).ok());
  EXPECT_EQ(Arrived(), kOnMinimalStack);
}

TEST_F(CoreRulesTest, SendLimitAppliesToTheUncompressedSize) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(4096);
  // 8 KiB of text compresses far below 4 KiB, and must still be refused.
  EXPECT_EQ(Call(raw_, args, 8192).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  ASSERT_TRUE(Call(raw_, args, 2048).ok());
  EXPECT_EQ(Arrived(), GRPC_COMPRESS_GZIP);
}

TEST_F(CoreRulesTest, OneByteMessages) {
  ASSERT_TRUE(Call(raw_, {}, 1).ok());
  // Core sends a message plain when compressing would make it larger; the
  // interceptor has no say in flags and compresses everything.
  EXPECT_EQ(Arrived(),
            RegisteredForCoreCodec() ? GRPC_COMPRESS_NONE : GRPC_COMPRESS_GZIP);
}

// One raw call of `request` on a call of `algorithm`, the reply dropped.
grpc::Status RawCall(const std::shared_ptr<grpc::Channel>& channel,
                     grpc_compression_algorithm algorithm,
                     const grpc::ByteBuffer& request) {
  grpc::ClientContext context;
  context.set_compression_algorithm(algorithm);
  grpc::ByteBuffer reply;
  return RawUnary(channel, &context, request, &reply);
}

// Runs one step of an async call to completion.
bool Await(grpc::CompletionQueue* cq, void* tag) {
  void* got = nullptr;
  bool ok = false;
  return cq->Next(&got, &ok) && got == tag && ok;
}

// Write options are invisible to interceptors: only core, and so the core
// codec, can honour them.
using CoreRulesOnCoreCodec = CoreRulesTest;

TEST_F(CoreRulesOnCoreCodec, SetNoCompressionIsHonoured) {
  ASSERT_TRUE(RegisteredForCoreCodec()) << "registered for the core codec only";
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  grpc::GenericStub stub(
      CreateChannel(raw_.target(), grpc::InsecureChannelCredentials(), args));
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  auto call = stub.PrepareCall(&context, "/pooled_gzip.echo.Echo/Unary", &cq);
  int tags[5];
  call->StartCall(&tags[0]);
  ASSERT_TRUE(Await(&cq, &tags[0]));
  call->Write(Serialized(Request(4096)),
              grpc::WriteOptions().set_no_compression(), &tags[1]);
  ASSERT_TRUE(Await(&cq, &tags[1]));
  call->WritesDone(&tags[2]);
  ASSERT_TRUE(Await(&cq, &tags[2]));
  grpc::ByteBuffer reply;
  call->Read(&reply, &tags[3]);
  ASSERT_TRUE(Await(&cq, &tags[3]));
  grpc::Status status;
  call->Finish(&status, &tags[4]);
  ASSERT_TRUE(Await(&cq, &tags[4]));
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Arrived(), GRPC_COMPRESS_NONE);
  cq.Shutdown();
}

// Core sends raw-mode buffers as they are (raw_mode.h makes matching the
// call's algorithm the caller's job); only the interceptor re-encodes them.
using CoreRulesOnFallback = CoreRulesTest;

TEST_F(CoreRulesOnFallback, CompressedBufferNeverGoesOutUnderAnotherAlgorithm) {
  ASSERT_FALSE(RegisteredForCoreCodec()) << "registered for the fallback only";
  grpc::ByteBuffer gzip_request;
  ASSERT_TRUE(
      EncodeMessage(Request(2048), GRPC_COMPRESS_GZIP, &gzip_request).ok());
  auto channel =
      CreateChannel(raw_.target(), grpc::InsecureChannelCredentials(), {});
  for (grpc_compression_algorithm call_algorithm :
       {GRPC_COMPRESS_NONE, GRPC_COMPRESS_DEFLATE, GRPC_COMPRESS_GZIP}) {
    const grpc::Status status = RawCall(channel, call_algorithm, gzip_request);
    ASSERT_TRUE(status.ok()) << status.error_message();
    // The server decoded it (RawEchoService checks the payload parses),
    // and it arrived under the call's own algorithm.
    EXPECT_EQ(Arrived(), call_algorithm);
  }
}

// The interceptor inflates such a buffer before core gets it, with
// Options::decoder: each decoder, in both formats, is the one whose row
// counts the message, and no other decoder saw it. The call sends plain and
// the reply comes back plain, so nothing else in this process inflates.
TEST_F(CoreRulesOnFallback, ReEncodedBufferIsInflatedByTheConfiguredDecoder) {
  ASSERT_FALSE(RegisteredForCoreCodec()) << "registered for the fallback only";
  auto channel =
      CreateChannel(raw_.target(), grpc::InsecureChannelCredentials(), {});
  for (grpc_compression_algorithm carried :
       {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE}) {
    grpc::ByteBuffer request;
    ASSERT_TRUE(EncodeMessage(Request(2048), carried, &request).ok());
    test_support::ExpectEachDecoderInflatesTheMessage(
        carried == GRPC_COMPRESS_GZIP ? "gzip" : "deflate", [&] {
          const grpc::Status status =
              RawCall(channel, GRPC_COMPRESS_NONE, request);
          ASSERT_TRUE(status.ok()) << status.error_message();
          EXPECT_EQ(Arrived(), GRPC_COMPRESS_NONE);
        });
  }
}

class CountingInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit CountingInterceptor(int* count) : count_(count) {}
  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      ++*count_;
    }
    methods->Proceed();
  }

 private:
  int* count_;
};

class CountingFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit CountingFactory(int* count) : count_(count) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new CountingInterceptor(count_);
  }

 private:
  int* count_;
};

TEST_F(CoreRulesTest, InterceptorFactoryComposesWithYourOwnList) {
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  int sent = 0;
  std::vector<
      std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      interceptors;
  interceptors.push_back(std::make_unique<CountingFactory>(&sent));
  interceptors.push_back(CreateClientInterceptorFactory(args));
  auto stub =
      Echo::NewStub(grpc::experimental::CreateCustomChannelWithInterceptors(
          raw_.target(), grpc::InsecureChannelCredentials(), args,
          std::move(interceptors)));
  grpc::ClientContext context;
  EchoResponse response;
  ASSERT_TRUE(stub->Unary(&context, Request(2048), &response).ok());
  EXPECT_EQ(sent, 1);
  EXPECT_EQ(Arrived(), GRPC_COMPRESS_GZIP);
}

TEST(ServerInterceptorFactory, ComposesWithYourOwnList) {
  EchoServiceImpl service;
  const LoopbackServer server =
      StartLoopbackServer(&service, [](grpc::ServerBuilder& builder) {
        builder.SetDefaultCompressionAlgorithm(GRPC_COMPRESS_GZIP);
        std::vector<std::unique_ptr<
            grpc::experimental::ServerInterceptorFactoryInterface>>
            interceptors;
        interceptors.push_back(CreateServerInterceptorFactory(builder));
        builder.experimental().SetInterceptorCreators(std::move(interceptors));
      });
  auto channel = grpc::CreateCustomChannel(
      server.target(), grpc::InsecureChannelCredentials(), RawModeArgs());
  grpc::ClientContext context;
  grpc::ByteBuffer reply;
  ASSERT_TRUE(
      RawUnary(channel, &context, Serialized(Request(2048)), &reply).ok());
  // Compressed by core through the core codec, or by the interceptor.
  EXPECT_EQ(ReceivedCompression(reply), GRPC_COMPRESS_GZIP);
  EchoResponse response;
  ASSERT_TRUE(DecodeMessage(reply, &response).ok());
  EXPECT_EQ(response.payload(), Request(2048).payload());
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::echo
