// What the plugin promises, checked with real servers and clients on
// loopback: messages really leave compressed, per-call settings are obeyed,
// the plugin steps aside where it cannot be certain of the algorithm, user
// interceptors keep running, contexts are recycled, and corrupt input fails
// one call without hurting the server. Every case expects the core codec
// active (core_codec_required.h).

#include <grpcpp/version_info.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <string>

#include "codec/codec.h"
#include "core_codec_required.h"
#include "each_decoder.h"
#include "echo_client_lib.h"
#include "echo_service.h"
#include "glue/byte_buffer_access.h"
#include "payloads.h"
#include "pooled_gzip/pooled_gzip.h"
#include "raw_echo.h"
#include "traffic_totals.h"

namespace pooled_gzip::echo {
namespace {

using grpc::experimental::InterceptionHookPoints;

EchoRequest Request(size_t size, const std::string& response_encoding = "") {
  EchoRequest request;
  request.set_payload(MakePayload(size, 7));
  request.set_response_encoding(response_encoding);
  return request;
}

[[maybe_unused]] const bool kCoreCodecRequired =
    test_support::RequireCoreCodec();

// Threads alive now, from /proc.
size_t ThreadsInThisProcess() {
  const std::filesystem::directory_iterator tasks("/proc/self/task");
  return static_cast<size_t>(
      std::distance(begin(tasks), std::filesystem::directory_iterator()));
}

// Checkouts from the process-wide pool, by anyone in this process.
uint64_t PoolCheckouts() {
  const PoolStats stats = GetPoolStats();
  return stats.created + stats.reused;
}

struct Reply {
  grpc_compression_algorithm compression;  // as it came off the wire
  uint64_t pool_checkouts;                 // during the call, both sides
};

// Sends one raw request through `channel`, which must have per-message
// decompression off, and checks the echoed payload.
Reply SendRaw(const std::shared_ptr<grpc::Channel>& channel,
              const EchoRequest& request) {
  grpc::ClientContext context;
  grpc::ByteBuffer reply;
  const uint64_t before = PoolCheckouts();
  grpc::Status status =
      RawUnary(channel, &context, Serialized(request), &reply);
  const uint64_t checkouts = PoolCheckouts() - before;
  EXPECT_TRUE(status.ok()) << status.error_message();
  EchoResponse response;
  EXPECT_TRUE(DecodeMessage(reply, &response).ok());
  EXPECT_EQ(response.payload(), request.payload());
  return {ReceivedCompression(reply), checkouts};
}

std::shared_ptr<grpc::Channel> RawStockChannel(const std::string& target) {
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(),
                                   RawModeArgs());
}

TEST(PluginOnTheWire, PooledClientSendsFlaggedMessagesOfTheCallAlgorithm) {
  RawServer raw = StartRawServer(/*with_plugin=*/false);
  for (grpc_compression_algorithm algorithm :
       {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE, GRPC_COMPRESS_NONE}) {
    auto stub =
        Echo::NewStub(MakeChannel(raw.target(), Mode::kPooled, algorithm));
    const uint64_t before = PoolCheckouts();
    grpc::ClientContext context;
    EchoResponse response;
    ASSERT_TRUE(stub->Unary(&context, Request(1024), &response).ok());
    EXPECT_EQ(raw.service->received().back(), algorithm);
    // The pool, not core, compressed: the client's writer, then the raw
    // server's reader.
    EXPECT_EQ(PoolCheckouts() - before,
              algorithm == GRPC_COMPRESS_NONE ? 0u : 2u);
  }
  raw.server->Shutdown();
}

TEST(PluginOnTheWire, PooledServerRepliesFlaggedPerServerDefault) {
  ServerOptions options;
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  RunningServer server = StartEchoServer(options);
  auto channel = RawStockChannel("127.0.0.1:" + std::to_string(server.port));
  const Reply reply = SendRaw(channel, Request(1024));
  EXPECT_EQ(reply.compression, GRPC_COMPRESS_GZIP);
  EXPECT_EQ(reply.pool_checkouts, 1u);  // the server's writer
  server.server->Shutdown();
}

TEST(PluginOnTheWire, PerCallAlgorithmOverridesTheDefaults) {
  ServerOptions options;
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  RunningServer server = StartEchoServer(options);
  auto channel = RawStockChannel("127.0.0.1:" + std::to_string(server.port));
  // ServerContext::set_compression_algorithm, through response_encoding.
  EXPECT_EQ(SendRaw(channel, Request(1024, "identity")).compression,
            GRPC_COMPRESS_NONE);
  EXPECT_EQ(SendRaw(channel, Request(1024, "deflate")).compression,
            GRPC_COMPRESS_DEFLATE);
  server.server->Shutdown();

  // ClientContext::set_compression_algorithm against the channel default.
  RawServer raw = StartRawServer(/*with_plugin=*/false);
  auto stub = Echo::NewStub(
      MakeChannel(raw.target(), Mode::kPooled, GRPC_COMPRESS_GZIP));
  for (grpc_compression_algorithm algorithm :
       {GRPC_COMPRESS_NONE, GRPC_COMPRESS_DEFLATE}) {
    grpc::ClientContext context;
    context.set_compression_algorithm(algorithm);
    EchoResponse response;
    ASSERT_TRUE(stub->Unary(&context, Request(1024), &response).ok());
    EXPECT_EQ(raw.service->received().back(), algorithm);
  }
  auto plain_stub = Echo::NewStub(
      MakeChannel(raw.target(), Mode::kPooled, GRPC_COMPRESS_NONE));
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  EchoResponse response;
  ASSERT_TRUE(plain_stub->Unary(&context, Request(1024), &response).ok());
  EXPECT_EQ(raw.service->received().back(), GRPC_COMPRESS_GZIP);
  raw.server->Shutdown();
}

TEST(PluginOnTheWire, RawModeRepliesAreNotCompressedTwice) {
  RawServer raw = StartRawServer(/*with_plugin=*/true);
  auto channel = grpc::CreateCustomChannel(
      raw.target(), grpc::InsecureChannelCredentials(), RawModeArgs());
  const Reply reply = SendRaw(channel, Request(64 * 1024, "gzip"));
  EXPECT_EQ(reply.compression, GRPC_COMPRESS_GZIP);
  // EncodeMessage's writer only; compressing it again would be a second
  // checkout.
  EXPECT_EQ(reply.pool_checkouts, 1u);
  raw.server->Shutdown();
}

// Options::skip_incompressible and min_compress_bytes on the wire: a
// skipped message leaves plain and is counted.
TEST(PluginOnTheWire, SkippedMessagesLeavePlainOnTheCoreCodec) {
  const Options original = GetOptions();
  Options options = original;
  options.skip_incompressible = true;
  options.min_compress_bytes = 200;
  ASSERT_TRUE(Configure(options).ok());
  RawServer raw = StartRawServer(/*with_plugin=*/false);
  auto stub = Echo::NewStub(
      MakeChannel(raw.target(), Mode::kPooled, GRPC_COMPRESS_GZIP));
  for (payloads::Kind kind : payloads::AllKinds()) {
    for (size_t size :
         {size_t{100}, size_t{1024}, size_t{65536}, size_t{1} << 20}) {
      const bool random = kind == payloads::Kind::kRandom;
      const bool skipped = (size < 200 || (random && size > 100));
      EchoRequest request;
      request.set_payload(payloads::Make(kind, size));
      const auto before = test_support::Totals(/*compressing=*/true, "gzip");
      grpc::ClientContext context;
      EchoResponse response;
      ASSERT_TRUE(stub->Unary(&context, request, &response).ok());
      EXPECT_EQ(response.payload(), request.payload());
      const auto after = test_support::Totals(/*compressing=*/true, "gzip");
      // What becomes of random bytes that are not skipped is core's rule
      // for messages that do not shrink, tested elsewhere.
      if (skipped || !random) {
        EXPECT_EQ(raw.service->received().back(),
                  skipped ? GRPC_COMPRESS_NONE : GRPC_COMPRESS_GZIP)
            << payloads::KindName(kind) << " " << size;
      }
      EXPECT_EQ(after.skipped - before.skipped, skipped ? 1u : 0u)
          << payloads::KindName(kind) << " " << size;
    }
  }
  raw.server->Shutdown();
  ASSERT_TRUE(Configure(original).ok());
}

TEST(PluginOnTheWire, LevelChannelArgSetsTheZlibLevel) {
  Options zlib;
  zlib.backend = Backend::kZlib;
  ASSERT_TRUE(Configure(zlib).ok());
  RawServer raw = StartRawServer(/*with_plugin=*/false);
  const EchoRequest request = Request(64 * 1024);
  // What plain zlib makes of the serialized request at each level.
  auto expected_size = [&](int level) {
    std::string compressed;
    internal::CompressOptions options;
    options.level = level;
    options.backend = Backend::kZlib;
    EXPECT_TRUE(internal::CompressToString(request.SerializeAsString(), options,
                                           &compressed)
                    .ok());
    return compressed.size();
  };
  for (int level : {0, 1, 9}) {
    auto stub = Echo::NewStub(
        MakeChannel(raw.target(), Mode::kPooled, GRPC_COMPRESS_GZIP, level));
    grpc::ClientContext context;
    WaitForReadyWithin(&context, std::chrono::seconds(30));  // a new channel
    EchoResponse response;
    const grpc::Status status = stub->Unary(&context, request, &response);
    ASSERT_TRUE(status.ok()) << "level " << level << ": " << status.error_code()
                             << " " << status.error_message();
    if (level == 0) {
      // Stored blocks are larger than the message: core's not-smaller rule
      // sends it plain, as stock gRPC would.
      EXPECT_EQ(raw.service->received().back(), GRPC_COMPRESS_NONE);
      continue;
    }
    EXPECT_EQ(raw.service->received().back(), GRPC_COMPRESS_GZIP);
    EXPECT_EQ(raw.service->last_wire_bytes(), expected_size(level))
        << "level " << level;
  }
  // Level 0 stores, so the three sizes really differ.
  EXPECT_GT(expected_size(0), expected_size(1));
  EXPECT_GT(expected_size(1), expected_size(9));
  // The level is process-wide: back to the default for the other cases.
  ASSERT_TRUE(Configure(Options{}).ok());
  raw.server->Shutdown();
}

// Raw mode inflates with Options::decoder: each decoder, in both formats,
// is the one whose row counts the message, and no other decoder saw it.
TEST(RawModeDecoder, DecodeToStringInflatesWithTheConfiguredDecoder) {
  const std::string message = payloads::Make(payloads::Kind::kWords, 4096, 3);
  for (grpc_compression_algorithm carried :
       {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE}) {
    grpc::ByteBuffer buffer;
    ASSERT_TRUE(EncodeBytes(message, carried, &buffer).ok());
    ASSERT_EQ(ReceivedCompression(buffer), carried);
    test_support::ExpectEachDecoderInflatesTheMessage(
        carried == GRPC_COMPRESS_GZIP ? "gzip" : "deflate", [&] {
          std::string out;
          const grpc::Status status = DecodeToString(buffer, &out);
          ASSERT_TRUE(status.ok()) << status.error_message();
          EXPECT_EQ(out, message);
        });
  }
}

// What raw mode's encoder cannot write it refuses, leaving `out` untouched.
TEST(RawModeEncoder, UnknownAlgorithmOrLevelIsInvalidArgument) {
  grpc::ByteBuffer out;
  EXPECT_EQ(
      EncodeBytes("message", GRPC_COMPRESS_ALGORITHMS_COUNT, &out).error_code(),
      grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(EncodeBytes("message", GRPC_COMPRESS_GZIP, &out, 1000).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_FALSE(out.Valid());
}

TEST(PluginStepsAside, WhenTheServerCompressesByLevel) {
  EchoServiceImpl service;
  const LoopbackServer server =
      StartLoopbackServer(&service, [](grpc::ServerBuilder& builder) {
        builder.SetDefaultCompressionLevel(GRPC_COMPRESS_LEVEL_HIGH);
        EnableOnServer(builder);
      });
  auto channel = RawStockChannel(server.target());

  const Reply reply = SendRaw(channel, Request(1024));
  // Core picked an algorithm from the level and the client's
  // grpc-accept-encoding, and compressed the reply with a pooled writer.
  EXPECT_NE(reply.compression, GRPC_COMPRESS_NONE);
  EXPECT_EQ(reply.pool_checkouts, 1u);
  server.server->Shutdown();
}

TEST(PluginStepsAside, WhenTheAlgorithmIsDisabledOnTheChannel) {
  RawServer raw = StartRawServer(/*with_plugin=*/false);
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  args.SetInt(GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET,
              1u << GRPC_COMPRESS_NONE | 1u << GRPC_COMPRESS_DEFLATE);
  auto stub = Echo::NewStub(
      CreateChannel(raw.target(), grpc::InsecureChannelCredentials(), args));
  const uint64_t before = PoolCheckouts();
  grpc::ClientContext context;
  EchoResponse response;
  ASSERT_TRUE(stub->Unary(&context, Request(1024), &response).ok());
  EXPECT_EQ(response.payload(), Request(1024).payload());
  // Core fell back to no compression, and so did the plugin.
  EXPECT_EQ(raw.service->received().back(), GRPC_COMPRESS_NONE);
  EXPECT_EQ(PoolCheckouts(), before);
  raw.server->Shutdown();
}

TEST(PluginStepsAside, OnInProcessChannels) {
  ServerOptions options;
  options.default_algorithm = GRPC_COMPRESS_GZIP;
  RunningServer server = StartEchoServer(options);
  grpc::ChannelArguments args;
  auto stub = Echo::NewStub(server.server->InProcessChannel(args));
  for (const char* encoding : {"", "gzip", "deflate"}) {
    const uint64_t checkouts = PoolCheckouts();
    const uint64_t compressed = test_support::CodecMessages(true);
    const uint64_t inflated = test_support::CodecMessages(false);
    grpc::ClientContext context;
    EchoResponse response;
    const EchoRequest request = Request(1024, encoding);
    grpc::Status status = stub->Unary(&context, request, &response);
    ASSERT_TRUE(status.ok()) << encoding << " " << status.error_message();
    EXPECT_EQ(response.payload(), request.payload()) << encoding;
    // In-process transports have no compression filters: core never calls
    // its codec, so the core codec sees nothing: nothing of either
    // direction reaches the codec or the pool.
    EXPECT_EQ(PoolCheckouts(), checkouts) << encoding;
    EXPECT_EQ(test_support::CodecMessages(true), compressed) << encoding;
    EXPECT_EQ(test_support::CodecMessages(false), inflated) << encoding;
  }
  server.server->Shutdown();
}

// Records whether each message it saw was still uncompressed, i.e. that it
// ran before the compressor.
class RecordingInterceptor : public grpc::experimental::Interceptor {
 public:
  struct Log {
    std::mutex mutex;
    int messages = 0;
    int compressed_before_me = 0;
  };
  explicit RecordingInterceptor(Log* log) : log_(log) {}
  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      std::lock_guard<std::mutex> lock(log_->mutex);
      ++log_->messages;
      if (ReceivedCompression(*methods->GetSerializedSendMessage()) !=
          GRPC_COMPRESS_NONE) {
        ++log_->compressed_before_me;
      }
    }
    methods->Proceed();
  }

 private:
  Log* log_;
};

class RecordingClientFactory
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit RecordingClientFactory(RecordingInterceptor::Log* log) : log_(log) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new RecordingInterceptor(log_);
  }

 private:
  RecordingInterceptor::Log* log_;
};

class RecordingServerFactory
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RecordingServerFactory(RecordingInterceptor::Log* log) : log_(log) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo*) override {
    return new RecordingInterceptor(log_);
  }

 private:
  RecordingInterceptor::Log* log_;
};

TEST(PooledEcho, UserInterceptorsRunFirstAndContextsAreRecycled) {
  RecordingInterceptor::Log server_log;
  RecordingInterceptor::Log client_log;
  EchoServiceImpl service;
  const LoopbackServer server = StartLoopbackServer(
      &service, [&server_log](grpc::ServerBuilder& builder) {
        builder.SetDefaultCompressionAlgorithm(GRPC_COMPRESS_GZIP);
        std::vector<std::unique_ptr<
            grpc::experimental::ServerInterceptorFactoryInterface>>
            server_interceptors;
        server_interceptors.push_back(
            std::make_unique<RecordingServerFactory>(&server_log));
        builder.experimental().SetInterceptorCreators(
            std::move(server_interceptors));
        EnableOnServer(builder);
      });

  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  ClientInterceptorFactories client_interceptors;
  client_interceptors.push_back(
      std::make_unique<RecordingClientFactory>(&client_log));
  auto stub = Echo::NewStub(
      CreateChannel(server.target(), grpc::InsecureChannelCredentials(), args,
                    std::move(client_interceptors)));

  const PoolStats start = GetPoolStats();
  LoadOptions load;
  load.rpc = Rpc::kBidi;
  load.count = 20;  // warm-up on a stream of its own
  ASSERT_TRUE(RunLoad(stub.get(), load).status.ok());
  grpc::ClientContext context;
  auto stream = stub->Bidi(&context);
  EchoRequest request = Request(1024);
  EchoResponse response;
  ASSERT_TRUE(stream->Write(request) && stream->Read(&response));
  const PoolStats warm = GetPoolStats();
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(stream->Write(request) && stream->Read(&response));
    ASSERT_EQ(response.payload(), request.payload());
  }
  const PoolStats steady = GetPoolStats();
  stream->WritesDone();
  ASSERT_TRUE(stream->Finish().ok());

  {
    std::lock_guard<std::mutex> client_lock(client_log.mutex);
    std::lock_guard<std::mutex> server_lock(server_log.mutex);
    // Each message passed the user's interceptor, uncompressed, on both sides.
    EXPECT_EQ(client_log.messages, 20 + 501);
    EXPECT_EQ(server_log.messages, 20 + 501);
    EXPECT_EQ(client_log.compressed_before_me, 0);
    EXPECT_EQ(server_log.compressed_before_me, 0);
    // Nothing is re-initialised per message: every message takes a pooled
    // writer, and a thread creates one at most. Which of gRPC's threads
    // compress is gRPC's choice (1.51 compresses on the interceptors'
    // threads; 1.83's promise-based filters on others, which may meet
    // their first message late), so the bound is the process's threads.
    const uint64_t writes = steady.writers.reused + steady.writers.created -
                            warm.writers.reused - warm.writers.created;
    EXPECT_EQ(writes, 2u * 500);
    EXPECT_LE(steady.writers.created - start.writers.created,
              ThreadsInThisProcess());
#if GRPC_CPP_VERSION_MAJOR == 1 && GRPC_CPP_VERSION_MINOR < 83
    // 1.51 compresses on the threads that ran the warm-up: none creates one.
    EXPECT_EQ(steady.writers.created, warm.writers.created);
#endif
    // Received messages: pooled readers (core inflates on its transport
    // threads, which may meet their first message late).
    const uint64_t reads = steady.readers.reused + steady.readers.created -
                           warm.readers.reused - warm.readers.created;
    EXPECT_EQ(reads, 2u * 500);
    // How many of gRPC's threads meet their first message late depends on
    // scheduling; that each creates one reader at most, never one per
    // message, does not.
    EXPECT_LE(steady.readers.created - warm.readers.created,
              ThreadsInThisProcess());
  }
  server.server->Shutdown();
}

TEST(CorruptInput, FailsTheCallAndTheServerKeepsServing) {
  for (bool raw_mode : {false, true}) {
    RawServer raw;
    RunningServer typed;
    std::string target;
    if (raw_mode) {
      raw = StartRawServer(/*with_plugin=*/true);
      target = raw.target();
    } else {
      typed = StartEchoServer(ServerOptions());
      target = "127.0.0.1:" + std::to_string(typed.port);
    }
    auto channel =
        grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
    const PoolStats before = GetPoolStats();

    // A message flagged as gzip whose body is not gzip.
    grpc::ByteBuffer corrupt = Serialized(Request(100));
    internal::CByteBuffer(corrupt)->data.raw.compression = GRPC_COMPRESS_GZIP;
    grpc::ClientContext bad_context;
    bad_context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
    grpc::ByteBuffer reply;
    grpc::Status status = RawUnary(channel, &bad_context, corrupt, &reply);
    EXPECT_FALSE(status.ok()) << "raw_mode=" << raw_mode;
    if (raw_mode) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS);
      // The reader that saw the error was destroyed, not pooled.
      EXPECT_EQ(GetPoolStats().discarded, before.discarded + 1);
    }

    // The next well-formed call on the same channel succeeds.
    auto stub = Echo::NewStub(channel);
    grpc::ClientContext good_context;
    good_context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
    EchoResponse response;
    const EchoRequest request = Request(1024);
    ASSERT_TRUE(stub->Unary(&good_context, request, &response).ok());
    EXPECT_EQ(response.payload(), request.payload());
    (raw_mode ? raw.server : typed.server)->Shutdown();
  }
}

}  // namespace
}  // namespace pooled_gzip::echo
