// The gRPC interop compression cases (client_compressed_unary,
// server_compressed_unary, client_compressed_streaming,
// server_compressed_streaming) against the suite's TestService on
// pooled-gzip raw mode, by the suite's C++ raw-mode client and by
// independent clients on grpc-js and grpc-go. A case passes when the client
// reports success AND the wire relay saw exactly the compressed flags the
// case prescribes: clients like grpc-js cannot see the flags of what they
// receive, the relay can.

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpc/testing/messages.pb.h"
#include "peers.h"
#include "relayed_server.h"

namespace pooled_gzip::interop {
namespace {

// One call as the case prescribes it on the wire.
struct ExpectedCall {
  std::string method;
  std::vector<bool> request_flags;   // per request: compressed?
  std::vector<bool> response_flags;  // per response: compressed?
  int status;
  std::vector<size_t> response_body_sizes;
};

constexpr int kInvalidArgument = 3;

std::vector<ExpectedCall> ExpectedWire(const std::string& test_case) {
  if (test_case == "client_compressed_unary") {
    return {{"UnaryCall", {false}, {}, kInvalidArgument, {}},  // the probe
            {"UnaryCall", {true}, {false}, 0, {314159}},
            {"UnaryCall", {false}, {false}, 0, {314159}}};
  }
  if (test_case == "server_compressed_unary") {
    return {{"UnaryCall", {false}, {true}, 0, {314159}},
            {"UnaryCall", {false}, {false}, 0, {314159}}};
  }
  if (test_case == "client_compressed_streaming") {
    return {{"StreamingInputCall", {false}, {}, kInvalidArgument, {}},
            {"StreamingInputCall", {true, false}, {false}, 0, {}}};
  }
  return {{"StreamingOutputCall", {false}, {true, false}, 0, {31415, 92653}}};
}

std::vector<bool> Flags(const HalfStream& half) {
  std::vector<bool> flags;
  for (const WireMessage& message : half.messages) {
    flags.push_back(message.compressed_flag);
  }
  return flags;
}

std::string FlagString(const std::vector<bool>& flags) {
  std::string text;
  for (bool flag : flags) absl::StrAppend(&text, flag ? "C" : "-");
  return text.empty() ? "(none)" : text;
}

// Body sizes of the responses, parsed as the method's response type.
std::vector<size_t> ResponseBodySizes(const StreamRecord& stream,
                                      const std::string& method) {
  std::vector<size_t> sizes;
  for (const WireMessage& message : stream.server().messages) {
    if (method == "UnaryCall") {
      grpc::testing::SimpleResponse response;
      if (response.ParseFromString(message.bytes)) {
        sizes.push_back(response.payload().body().size());
      }
    } else if (method == "StreamingOutputCall") {
      grpc::testing::StreamingOutputCallResponse response;
      if (response.ParseFromString(message.bytes)) {
        sizes.push_back(response.payload().body().size());
      }
    }
  }
  return sizes;
}

void CheckCall(const StreamRecord& stream, const ExpectedCall& expected) {
  SCOPED_TRACE(absl::StrCat("stream ", stream.id, " ", stream.path()));
  EXPECT_EQ(stream.path(), "/grpc.testing.TestService/" + expected.method);
  EXPECT_EQ(stream.grpc_status(), expected.status);
  EXPECT_EQ(FlagString(Flags(stream.client())),
            FlagString(expected.request_flags));
  EXPECT_EQ(FlagString(Flags(stream.server())),
            FlagString(expected.response_flags));
  for (Direction direction : {kClientToServer, kServerToClient}) {
    const HalfStream& half = stream.half[direction];
    bool any_flagged = false;
    for (const WireMessage& message : half.messages) {
      EXPECT_TRUE(message.ok())
          << DirectionName(direction) << ": " << message.error;
      any_flagged |= message.compressed_flag;
    }
    // A flagged message needs the call's grpc-encoding to be gzip.
    if (any_flagged) {
      EXPECT_EQ(stream.encoding(direction), "gzip") << DirectionName(direction);
    }
  }
  if (!expected.response_body_sizes.empty()) {
    EXPECT_EQ(ResponseBodySizes(stream, expected.method),
              expected.response_body_sizes);
  }
}

using Param = std::tuple<InteropClient, std::string>;

class CompressionCasesTest : public testing::TestWithParam<Param> {};

TEST_P(CompressionCasesTest, PassesAndTheWireAgrees) {
  const auto& [client, test_case] = GetParam();
  absl::StatusOr<std::unique_ptr<RelayedServer>> server =
      RelayedServer::Start(InteropTestServer());
  ASSERT_TRUE(server.ok()) << server.status();
  std::string output;
  EXPECT_TRUE((*server)
                  ->RunClient(InteropClientCommand(client, (*server)->port(),
                                                   test_case),
                              &output)
                  .ok())
      << output;
  absl::StatusOr<std::vector<StreamRecord>> streams =
      (*server)->CollectStreams();
  ASSERT_TRUE(streams.ok()) << streams.status();
  const std::vector<ExpectedCall> expected = ExpectedWire(test_case);
  ASSERT_EQ(streams->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    std::cout << "  wire: " << (*streams)[i].path() << " requests "
              << FlagString(Flags((*streams)[i].client())) << " responses "
              << FlagString(Flags((*streams)[i].server())) << " grpc-status "
              << (*streams)[i].grpc_status().value_or(-1) << "\n";
    CheckCall((*streams)[i], expected[i]);
  }
}

std::vector<Param> AllCases() {
  std::vector<Param> params;
  for (InteropClient client :
       {InteropClient::kCpp, InteropClient::kNode, InteropClient::kGo}) {
    for (const char* test_case :
         {"client_compressed_unary", "server_compressed_unary",
          "client_compressed_streaming", "server_compressed_streaming"}) {
      // grpc-go 1.33 compresses per call, not per message: it cannot send
      // this case's uncompressed second message on a gzip call.
      if (client == InteropClient::kGo &&
          std::string(test_case) == "client_compressed_streaming") {
        continue;
      }
      params.emplace_back(client, test_case);
    }
  }
  return params;
}

std::string ParamName(const testing::TestParamInfo<Param>& info) {
  return absl::StrCat(InteropClientName(std::get<0>(info.param)), "_",
                      std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Interop, CompressionCasesTest,
                         testing::ValuesIn(AllCases()), ParamName);

}  // namespace
}  // namespace pooled_gzip::interop
