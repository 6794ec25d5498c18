// gRPC's own compression rules hold with the plugin, since core applies
// them itself on the core codec: minimal stacks, send limits, the
// algorithm of each call, write options, user interceptor lists.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/version_info.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core_codec_required.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "pooled_gzip/pooled_gzip.h"
#include "raw_echo.h"
#include "traffic_totals.h"

namespace pooled_gzip::echo {
namespace {

[[maybe_unused]] const bool kCoreCodecRequired =
    test_support::RequireCoreCodec();

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
  // Core sends a message plain when compressing would make it larger.
  EXPECT_EQ(Arrived(), GRPC_COMPRESS_NONE);
}

// Runs one step of an async call to completion.
bool Await(grpc::CompletionQueue* cq, void* tag) {
  void* got = nullptr;
  bool ok = false;
  return cq->Next(&got, &ok) && got == tag && ok;
}

// Write options are invisible to interceptors: core honours them, and the
// core codec is core's.
TEST_F(CoreRulesTest, SetNoCompressionIsHonoured) {
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

TEST_F(CoreRulesTest, YourInterceptorsRunOnAPooledChannel) {
  int sent = 0;
  ClientInterceptorFactories interceptors;
  interceptors.push_back(std::make_unique<CountingFactory>(&sent));
  ASSERT_TRUE(Call(raw_, {}, 2048, std::move(interceptors)).ok());
  EXPECT_EQ(sent, 1);
  EXPECT_EQ(Arrived(), GRPC_COMPRESS_GZIP);
}

}  // namespace
}  // namespace pooled_gzip::echo
