// The interop matrix: each peer (grpc-go, grpc-js, Python grpcio, stock gRPC
// C++) as a client of pooled-gzip's echo server and as a server for
// pooled-gzip's echo client, every RPC kind, payloads of 1 B, 1 KiB and
// 1 MiB, with gzip, deflate and no compression. Each test passes only if the
// programs report every echo correct AND the wire relay saw each side
// compress exactly as it should: with pooled-gzip sending, every message
// flagged and valid for plain zlib; with compression off, nothing flagged.
// The pooled programs' traffic reports must also show that the backend the
// run asked for (POOLED_GZIP_INTEROP_BACKEND, or the default) did the work.

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <regex>
#include <string>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "child_process.h"
#include "codec/settings.h"
#include "echo_wire_checks.h"
#include "peer_payload.h"
#include "peers.h"
#include "pooled_gzip/options.h"
#include "relayed_server.h"

namespace pooled_gzip::interop {
namespace {

// Who serves: pooled-gzip with a peer client, or a peer with pooled-gzip's
// client.
enum class Role { kPeerClient, kPeerServer };

void PrintTo(Role role, std::ostream* out) {
  *out << (role == Role::kPeerClient ? "peer client" : "peer server");
}

using Param = std::tuple<Peer, Role, std::string>;

// How a peer compresses what it sends when asked for `algorithm`.
Sending PeerSends(Peer peer, Role role, const std::string& algorithm) {
  if (algorithm == "none") return Sending::kNothing;
  switch (peer) {
    case Peer::kGo:
      // Clients compress every message; servers reply with the request's
      // compressor, which here is the algorithm.
      return Sending::kEveryMessage;
    case Peer::kNode:
      // A grpc-js server never compresses responses; its clients misread
      // gRPC C++'s grpc-accept-encoding (see kFirstMessageOfEachCall).
      return role == Role::kPeerClient ? Sending::kFirstMessageOfEachCall
                                       : Sending::kNothing;
    case Peer::kPython:
    case Peer::kStockCpp:
      return Sending::kCoreRule;
  }
  return Sending::kNothing;
}

// The backend peers.cc's WithBackend gives the pooled programs: the one
// CTest registered the run for, or the library's default.
std::string ExpectedBackend() {
  const char* backend = std::getenv("POOLED_GZIP_INTEROP_BACKEND");
  if (backend != nullptr && *backend != '\0') return backend;
  return std::string(BackendName(Options().backend));
}

// The decoder the pooled programs inflate `algorithm` with: they name no
// decoder, so the library's default for the format, whoever compressed.
std::string ExpectedDecoder(const std::string& algorithm) {
  return std::string(BackendName(internal::DefaultDecoder(
      algorithm == "gzip" ? internal::Format::kGzip
                          : internal::Format::kDeflate)));
}

// Reads the "traffic:" lines the pooled programs print (one per
// GetTrafficStats() row): `algorithm` must have been compressed by the
// expected backend, received messages inflated by the expected decoder,
// and no other backend may have touched a message.
void ExpectBackendTookEffect(const std::string& output,
                             const std::string& algorithm) {
  const std::string backend = ExpectedBackend();
  const std::regex row(
      R"(traffic: +(compress|decompress) (\w+) (\w+): (\d+) messages)");
  uint64_t compressed = 0;
  for (std::sregex_iterator it(output.begin(), output.end(), row), end;
       it != end; ++it) {
    const std::smatch& match = *it;
    uint64_t messages = 0;
    ASSERT_TRUE(absl::SimpleAtoi(match[4].str(), &messages));
    EXPECT_EQ(match[3].str(), match[1].str() == "compress"
                                  ? backend
                                  : ExpectedDecoder(match[2].str()))
        << match[0].str();
    if (match[1].str() == "compress" && match[2].str() == algorithm &&
        match[3].str() == backend) {
      compressed += messages;
    }
  }
  EXPECT_GT(compressed, 0u)
      << "no " << algorithm << " message compressed by " << backend << " in:\n"
      << output;
}

class EchoInteropTest : public testing::TestWithParam<Param> {};

TEST_P(EchoInteropTest, EchoesAndCompressesAsExpectedOnTheWire) {
  const auto& [peer, role, algorithm] = GetParam();
  // The pooled programs are on the core codec: core's own rule.
  const Sending pooled =
      algorithm == "none" ? Sending::kNothing : Sending::kCoreRule;
  EchoExpectation expectation;
  expectation.algorithm = algorithm;
  expectation.rpcs = EchoRpcs();
  expectation.sizes = EchoSizes();
  expectation.count = kEchoCount;

  const bool peer_client = role == Role::kPeerClient;
  absl::StatusOr<std::unique_ptr<RelayedServer>> server = RelayedServer::Start(
      peer_client ? PooledEchoServer() : PeerEchoServer(peer));
  ASSERT_TRUE(server.ok()) << server.status();
  std::vector<Command> clients;
  if (peer_client) {
    clients = PeerEchoClient(peer, (*server)->target(), algorithm);
    expectation.requests = PeerSends(peer, role, algorithm);
    expectation.responses = pooled;
  } else {
    clients = PooledEchoClient((*server)->target(), algorithm);
    expectation.requests = pooled;
    expectation.responses = PeerSends(peer, role, algorithm);
  }
  // Every client sends the suite's payload, the example client included.
  expectation.payload = PeerPayload;

  std::string pooled_output;  // of the pooled program
  for (const Command& client : clients) {
    std::string output;
    EXPECT_TRUE((*server)->RunClient(client, &output).ok()) << output;
    if (!peer_client) pooled_output += output;
  }
  absl::StatusOr<std::vector<StreamRecord>> streams =
      (*server)->CollectStreams();
  ASSERT_TRUE(streams.ok()) << streams.status();
  if (peer_client) pooled_output = (*server)->StopServer();
  if (algorithm != "none") ExpectBackendTookEffect(pooled_output, algorithm);

  const EchoWireReport report = CheckEchoWire(*streams, expectation);
  for (const std::string& line : report.observations) {
    std::cout << "  wire: " << line << "\n";
  }
  for (const std::string& failure : report.failures) ADD_FAILURE() << failure;
}

struct Recycling {
  uint64_t created = 0;
  uint64_t reused = 0;
};

// "writers{created=2 reused=998 ...}" from a pool line the examples print.
Recycling Parse(const std::string& output, const std::string& pool) {
  std::smatch match;
  const std::regex pattern(pool + R"(\{created=(\d+) reused=(\d+))");
  Recycling recycling;
  if (std::regex_search(output, match, pattern)) {
    EXPECT_TRUE(absl::SimpleAtoi(match[1].str(), &recycling.created));
    EXPECT_TRUE(absl::SimpleAtoi(match[2].str(), &recycling.reused));
  } else {
    ADD_FAILURE() << "no " << pool << " stats in:\n" << output;
  }
  return recycling;
}

// Typed methods, client and server in their own processes, both on the core
// codec: every request and response is written and read by recycled
// contexts, on both sides.
TEST(PooledPairOnCoreCodec, BothProcessesRecycleWritersAndReaders) {
  constexpr int kMessages = 2000;
  // An explicit backend and level, which the set-up must not undo.
  Command server_command = PooledEchoServer("gzip");
  server_command.push_back("--backend=zlib");
  server_command.push_back("--level=2");
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> server =
      support::ChildProcess::Start(server_command);
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<int> port = (*server)->WaitForListeningPort(absl::Seconds(30));
  ASSERT_TRUE(port.ok()) << port.status();
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> client =
      support::ChildProcess::Start(PooledEchoLoad(
          absl::StrCat("127.0.0.1:", *port), "gzip", "bidi", 1024, kMessages));
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<int> exit_code = (*client)->WaitForExit(absl::Seconds(120));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  ASSERT_EQ(*exit_code, 0) << (*client)->output();
  (*server)->Terminate();

  EXPECT_NE((*server)->output().find("backend zlib level 2"), std::string::npos)
      << (*server)->output();
  for (const std::string* output :
       {&(*client)->output(), &(*server)->output()}) {
    EXPECT_NE(output->find("core codec active"), std::string::npos) << *output;
    for (const char* pool : {"writers", "readers"}) {
      const Recycling recycling = Parse(*output, pool);
      std::cout << "  "
                << (output == &(*client)->output() ? "client" : "server") << " "
                << pool << ": created " << recycling.created << ", reused "
                << recycling.reused << "\n";
      // Each message is one checkout; a handful of contexts serve them all.
      EXPECT_GE(recycling.reused + recycling.created, uint64_t{kMessages})
          << pool << " in:\n"
          << *output;
      EXPECT_LE(recycling.created, 8u) << pool << " in:\n" << *output;
    }
  }
}

std::string ParamName(const testing::TestParamInfo<Param>& info) {
  const auto& [peer, role, algorithm] = info.param;
  return absl::StrCat(PeerName(peer), "_",
                      role == Role::kPeerClient ? "client" : "server", "_",
                      algorithm);
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, EchoInteropTest,
    testing::Combine(testing::Values(Peer::kGo, Peer::kNode, Peer::kPython,
                                     Peer::kStockCpp),
                     testing::Values(Role::kPeerClient, Role::kPeerServer),
                     testing::Values("gzip", "deflate", "none")),
    ParamName);

}  // namespace
}  // namespace pooled_gzip::interop
