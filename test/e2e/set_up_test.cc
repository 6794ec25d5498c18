// What the set-up calls install, and when. The core codec is installed once
// per process, so every case needs a process in which nothing installed it
// yet: CTest runs each case in a process of its own.

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "log_capture.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::echo {
namespace {

uint64_t PoolCheckouts() {
  const PoolStats stats = GetPoolStats();
  return stats.created + stats.reused;
}

// A typed echo server built with EnableOnServer and `args`.
struct Server {
  EchoServiceImpl service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;

  std::string target() const { return "127.0.0.1:" + std::to_string(port); }
};

// `builder` listening on loopback for `server`, gzip by default.
void Prepare(grpc::ServerBuilder* builder, Server* server) {
  builder->AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                            &server->port);
  builder->RegisterService(&server->service);
  builder->SetDefaultCompressionAlgorithm(GRPC_COMPRESS_GZIP);
}

void Start(Server* server, const grpc::ChannelArguments& args,
           bool* active_before_build) {
  grpc::ServerBuilder builder;
  Prepare(&builder, server);
  grpc_channel_args c_args = args.c_channel_args();
  for (size_t i = 0; i < c_args.num_args; ++i) {
    builder.AddChannelArgument(c_args.args[i].key,
                               c_args.args[i].value.integer);
  }
  EnableOnServer(builder);
  *active_before_build = CoreCodecActive();
  server->server = builder.BuildAndStart();
}

grpc::Status GzipEcho(const std::string& target) {
  auto stub =
      Echo::NewStub(MakeChannel(target, Mode::kStock, GRPC_COMPRESS_GZIP));
  grpc::ClientContext context;
  EchoRequest request;
  request.set_payload(MakePayload(4096, 3));
  EchoResponse response;
  grpc::Status status = stub->Unary(&context, request, &response);
  if (status.ok() && response.payload() != request.payload()) {
    return grpc::Status(grpc::StatusCode::DATA_LOSS, "echo differs");
  }
  return status;
}

// The lines naming a set-up call made after BuildAndStart that an operator
// who changed nothing sees: errors, and warnings where gRPC has them.
constexpr char kLateSetUp[] =
    "was called on a grpc::ServerBuilder after its BuildAndStart()";

int LateSetUpWarnings(const std::vector<test_support::LogLine>& lines,
                      const std::string& caller) {
  int warnings = 0;
  for (const auto& [severity, message] : lines) {
    if (message.find(kLateSetUp) == std::string::npos) continue;
    EXPECT_NE(severity, test_support::Severity::kInfo) << message;
    EXPECT_NE(message.find(caller), std::string::npos) << message;
    ++warnings;
  }
  return warnings;
}

// Builds and starts `server`, then makes `late_call` on its builder and
// returns what that call logged.
std::vector<test_support::LogLine> LogOfLateSetUp(
    Server* server,
    const std::function<void(grpc::ServerBuilder&)>& late_call) {
  grpc::ServerBuilder builder;
  Prepare(&builder, server);
  server->server = builder.BuildAndStart();
  if (server->server == nullptr) {
    ADD_FAILURE() << "the server did not start";
    return {};
  }
  test_support::LogCapture capture;
  late_call(builder);
  return capture.Lines();
}

TEST(SetUp, EnabledServerInstallsTheCodecWhenItIsBuilt) {
  Server server;
  bool active_before_build = true;
  Start(&server, grpc::ChannelArguments(), &active_before_build);
  ASSERT_NE(server.server, nullptr);
  // Only BuildAndStart knows the server's final arguments.
  EXPECT_FALSE(active_before_build);
  EXPECT_TRUE(CoreCodecActive()) << InstallCoreCodec();
  const uint64_t before = PoolCheckouts();
  EXPECT_TRUE(GzipEcho(server.target()).ok());
  // The server's reader and writer; the stock client's own are core's, but
  // the codec serves the whole process, so they are pooled too.
  EXPECT_EQ(PoolCheckouts() - before, 4u);
  server.server->Shutdown();
}

TEST(SetUp, ServerWithThePluginDisabledInstallsNothing) {
  Server server;
  grpc::ChannelArguments args;
  args.SetInt(kArgEnabled, 0);
  bool active_before_build = true;
  Start(&server, args, &active_before_build);
  ASSERT_NE(server.server, nullptr);
  EXPECT_FALSE(CoreCodecActive());
  const uint64_t before = PoolCheckouts();
  EXPECT_TRUE(GzipEcho(server.target()).ok());
  EXPECT_EQ(PoolCheckouts() - before, 0u);  // stock gRPC, both sides
  EXPECT_FALSE(CoreCodecActive());
  server.server->Shutdown();
}

TEST(SetUp, ChannelWithThePluginDisabledInstallsNothing) {
  grpc::ChannelArguments args;
  args.SetInt(kArgEnabled, 0);
  auto channel =
      CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials(), args);
  ASSERT_NE(channel, nullptr);
  EXPECT_FALSE(CoreCodecActive());
}

// What the first install logs, information included, under the opt-out.
std::vector<test_support::LogLine> LogOfInstallUnderTheOptOut() {
  EXPECT_EQ(setenv("POOLED_GZIP_CORE_CODEC", "0", /*overwrite=*/1), 0);
  test_support::LogCapture::IncludeInformation();
  test_support::LogCapture capture;
  EXPECT_FALSE(InstallCoreCodec());
  return capture.Lines();
}

// Turning the codec off is a choice, not a fault: it must not page anyone.
TEST(SetUp, TheOptOutIsLoggedAsInformation) {
  const std::vector<test_support::LogLine> lines = LogOfInstallUnderTheOptOut();
  int reported = 0;
  for (const auto& [severity, message] : lines) {
    if (message.find("POOLED_GZIP_CORE_CODEC=0") == std::string::npos) continue;
    ++reported;
    EXPECT_EQ(severity, test_support::Severity::kInfo) << message;
  }
  EXPECT_EQ(reported, 1);
}

// A program reads what the log line says: before any set-up call, nothing
// is installed, and the status says so.
TEST(SetUp, StatusBeforeAnyInstallSaysNotInstalled) {
  const absl::Status status = CoreCodecStatus();
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_NE(status.message().find("not installed"), std::string::npos)
      << status;
  const CoreCodecState state = GetCoreCodecState();
  EXPECT_EQ(state.compress, ServingState::kOff);
  EXPECT_EQ(state.decompress, ServingState::kOff);
}

TEST(SetUp, StatusIsOkOnceBothDirectionsAreServed) {
  ASSERT_TRUE(InstallCoreCodec()) << CoreCodecStatus();
  EXPECT_TRUE(CoreCodecStatus().ok()) << CoreCodecStatus();
  const CoreCodecState state = GetCoreCodecState();
  EXPECT_EQ(state.compress, ServingState::kServed);
  EXPECT_EQ(state.decompress, ServingState::kServed);
}

// Under the opt-out the status names it and both directions, in the words
// of the line logged.
TEST(SetUp, StatusUnderTheOptOutNamesIt) {
  const std::vector<test_support::LogLine> lines = LogOfInstallUnderTheOptOut();
  const absl::Status status = CoreCodecStatus();
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  const std::string message(status.message());
  EXPECT_NE(message.find("POOLED_GZIP_CORE_CODEC=0"), std::string::npos)
      << message;
  EXPECT_NE(message.find("compressing and decompressing not served"),
            std::string::npos)
      << message;
  const CoreCodecState state = GetCoreCodecState();
  EXPECT_EQ(state.compress, ServingState::kOff);
  EXPECT_EQ(state.decompress, ServingState::kOff);
  // The reason after the status's "not served: " is the log line's.
  const std::string reason = message.substr(message.find(": ") + 2);
  int logged = 0;
  for (const auto& line : lines) {
    if (line.message.find(reason) != std::string::npos) ++logged;
  }
  EXPECT_EQ(logged, 1) << reason;
}

// Activation's own message is served whatever the options: a level, a
// minimum size or a cap that declines or refuses it must not read as a
// direction not served.
TEST(SetUp, ActiveWhateverTheOptionsConfiguredFirst) {
  Options options;
  options.backend = Backend::kZlib;
  options.level = 0;
  options.min_compress_bytes = 1 << 20;
  options.skip_incompressible = true;
  options.max_decompressed_bytes = 16;
  ASSERT_TRUE(Configure(options).ok());
  EXPECT_TRUE(InstallCoreCodec());
  EXPECT_EQ(GetOptions().min_compress_bytes, size_t{1} << 20);
}

// Off means stock gRPC: an enabled server and a pooled client, and no
// message of either touches the codec or the pool.
TEST(SetUp, TheOptOutRunsAsStockGrpc) {
  ASSERT_EQ(setenv("POOLED_GZIP_CORE_CODEC", "0", /*overwrite=*/1), 0);
  Server server;
  bool active_before_build = true;
  Start(&server, grpc::ChannelArguments(), &active_before_build);
  ASSERT_NE(server.server, nullptr);
  EXPECT_FALSE(CoreCodecActive());
  const uint64_t before = PoolCheckouts();
  auto stub = Echo::NewStub(
      MakeChannel(server.target(), Mode::kPooled, GRPC_COMPRESS_GZIP));
  grpc::ClientContext context;
  EchoRequest request;
  request.set_payload(MakePayload(4096, 3));
  EchoResponse response;
  ASSERT_TRUE(stub->Unary(&context, request, &response).ok());
  EXPECT_EQ(response.payload(), request.payload());
  EXPECT_EQ(PoolCheckouts() - before, 0u);
  EXPECT_EQ(GetTrafficStats().size(), 0u);
  server.server->Shutdown();
}

// Too late to set the server up: the builder reads no option any more. The
// server runs on stock gRPC, and the call says so instead of nothing.
TEST(SetUp, EnableOnServerAfterBuildAndStartWarns) {
  Server server;
  const auto lines = LogOfLateSetUp(
      &server, [](grpc::ServerBuilder& builder) { EnableOnServer(builder); });
  ASSERT_NE(server.server, nullptr);
  EXPECT_EQ(LateSetUpWarnings(lines, "EnableOnServer"), 1);
  EXPECT_FALSE(CoreCodecActive());
  const uint64_t before = PoolCheckouts();
  EXPECT_TRUE(GzipEcho(server.target()).ok());
  EXPECT_EQ(PoolCheckouts() - before, 0u);  // stock gRPC, both sides
  server.server->Shutdown();
}

// In time, the same call warns of nothing, on a builder constructed and
// destroyed after another built: the warning is of this builder.
TEST(SetUp, EnableOnServerBeforeBuildAndStartDoesNotWarn) {
  Server first;
  {
    grpc::ServerBuilder builder;
    Prepare(&builder, &first);
    first.server = builder.BuildAndStart();
    ASSERT_NE(first.server, nullptr);
  }
  Server server;
  bool active_before_build = true;
  std::vector<test_support::LogLine> lines;
  {
    test_support::LogCapture capture;
    Start(&server, grpc::ChannelArguments(), &active_before_build);
    lines = capture.Lines();
  }
  ASSERT_NE(server.server, nullptr);
  EXPECT_EQ(LateSetUpWarnings(lines, "EnableOnServer"), 0);
  EXPECT_TRUE(CoreCodecActive());
  const uint64_t before = PoolCheckouts();
  EXPECT_TRUE(GzipEcho(server.target()).ok());
  EXPECT_EQ(PoolCheckouts() - before, 4u);  // as when built (above)
  first.server->Shutdown();
  server.server->Shutdown();
}

}  // namespace
}  // namespace pooled_gzip::echo
