// The core codec under gRPC's threading: on the callback server gRPC runs a
// call's operations on whichever event-engine thread completes them, so
// replies are compressed, and requests inflated, by pooled contexts on
// many threads at once. Functionally each call must echo intact with its
// reply compressed as asked; under ThreadSanitizer (scripts/sanitizers.sh
// tsan) the many calls give any unsynchronised access to the pools' state
// the chance to be reported.

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "echo_client_lib.h"
#include "pooled_gzip/pooled_gzip.h"
#include "raw_echo.h"

namespace pooled_gzip::reliability {
namespace {

TEST(CallbackServerThreads, ManyCallsOnTheCallbackServerFromTwoClients) {
  echo::RawServer raw = echo::StartRawServer(/*with_plugin=*/true);
  auto client = [&raw](int thread) {
    // A stock client in raw mode, to see the replies as they came.
    auto channel = grpc::CreateCustomChannel(
        raw.target(), grpc::InsecureChannelCredentials(), echo::RawModeArgs());
    for (int i = 0; i < 150; ++i) {
      echo::EchoRequest request;
      request.set_payload(echo::MakePayload(512 + i, thread * 1000 + i));
      request.set_response_encoding(i % 3 == 0   ? "identity"
                                    : i % 3 == 1 ? "gzip"
                                                 : "deflate");
      grpc::ClientContext context;
      grpc::ByteBuffer reply;
      const grpc::Status status =
          echo::RawUnary(channel, &context, echo::Serialized(request), &reply);
      ASSERT_TRUE(status.ok()) << status.error_message();
      EXPECT_EQ(ReceivedCompression(reply), i % 3 == 0 ? GRPC_COMPRESS_NONE
                                            : i % 3 == 1
                                                ? GRPC_COMPRESS_GZIP
                                                : GRPC_COMPRESS_DEFLATE);
      echo::EchoResponse response;
      ASSERT_TRUE(DecodeMessage(reply, &response).ok());
      ASSERT_EQ(response.payload(), request.payload());
    }
  };
  std::thread other(client, 1);
  client(0);
  other.join();
  raw.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::reliability
