// Example echo client: stock gRPC or pooled-gzip, same binary.
//
//   echo_client --target=127.0.0.1:50051 --mode=pooled --compression=gzip
//               --rpc=bidi --size=1024 --count=1000
//
// Sends --count messages of --size bytes (words, or with --payload=random
// bytes that do not compress), checks every echo, then prints what
// pooled-gzip did: its pools, its traffic, whether the core codec ran.
// Exits 0 if every echo came back intact. For timings, see bench/e2e_bench.

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "echo.grpc.pb.h"
#include "pooled_gzip/pooled_gzip.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server address");
ABSL_FLAG(std::string, mode, "pooled", "pooled | stock");
ABSL_FLAG(std::string, compression, "gzip", "gzip | deflate | none");
ABSL_FLAG(std::string, backend, "",
          "pooled mode: zlib | libdeflate | isal (empty: the default)");
ABSL_FLAG(int, level, -1, "pooled mode: the backend's level; -1: default");
ABSL_FLAG(std::string, rpc, "bidi",
          "unary | bidi | client_stream | server_stream");
ABSL_FLAG(int, count, 1000, "messages to send");
ABSL_FLAG(int, size, 1024, "payload bytes per message");
ABSL_FLAG(std::string, payload, "words",
          "words | random (incompressible: what skip_incompressible skips)");

using pooled_gzip::echo::Echo;
using pooled_gzip::echo::EchoRequest;
using pooled_gzip::echo::EchoResponse;

namespace {

// Words, a newline after every eighth, cut to `size` bytes; `seed` shifts
// them. The interop suite's Go, Node and Python clients send the same.
std::string Payload(size_t size, int seed) {
  static const char* const kWords[] = {"alpha", "bravo",   "charlie", "delta",
                                       "echo",  "foxtrot", "golf",    "hotel",
                                       "india", "juliet"};
  std::string text;
  for (int k = 0; text.size() < size; ++k) {
    text.append(kWords[(k * 7 + seed * 3) % 10])
        .push_back(k % 8 == 7 ? '\n' : ' ');
  }
  text.resize(size);
  return text;
}

// `size` pseudo-random bytes, the same for a given `seed` on every run.
std::string RandomPayload(size_t size, int seed) {
  std::mt19937 bits(static_cast<uint32_t>(seed));
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = static_cast<char>(bits());
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string mode = absl::GetFlag(FLAGS_mode);
  const std::string rpc = absl::GetFlag(FLAGS_rpc);
  const std::string compression = absl::GetFlag(FLAGS_compression);
  const int count = absl::GetFlag(FLAGS_count);
  const int size = absl::GetFlag(FLAGS_size);
  const std::string payload = absl::GetFlag(FLAGS_payload);
  const std::string backend_name = absl::GetFlag(FLAGS_backend);
  const int level = absl::GetFlag(FLAGS_level);
  const bool pooled = mode == "pooled";
  const grpc_compression_algorithm algorithm =
      compression == "gzip"      ? GRPC_COMPRESS_GZIP
      : compression == "deflate" ? GRPC_COMPRESS_DEFLATE
                                 : GRPC_COMPRESS_NONE;
  if ((!pooled && mode != "stock") ||
      (algorithm == GRPC_COMPRESS_NONE && compression != "none") ||
      (rpc != "unary" && rpc != "bidi" && rpc != "client_stream" &&
       rpc != "server_stream") ||
      (payload != "words" && payload != "random")) {
    std::fprintf(stderr, "bad --mode, --compression, --rpc or --payload\n");
    return 2;
  }
  if (pooled &&
      (!backend_name.empty() || level != pooled_gzip::kDefaultLevel)) {
    // Process-wide and optional: another backend or level.
    pooled_gzip::Options options = pooled_gzip::GetOptions();
    const auto backend = pooled_gzip::ParseBackend(backend_name);
    if (backend) options.backend = *backend;
    options.level = level;
    if ((!backend && !backend_name.empty()) ||
        !pooled_gzip::Configure(options).ok()) {
      std::fprintf(stderr, "bad --backend or --level\n");
      return 2;
    }
  }

  // pooled_gzip::CreateChannel takes what grpc::CreateCustomChannel takes.
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(algorithm);
  const auto credentials = grpc::InsecureChannelCredentials();
  const std::string target = absl::GetFlag(FLAGS_target);
  auto stub = Echo::NewStub(
      pooled ? pooled_gzip::CreateChannel(target, credentials, args)
             : grpc::CreateCustomChannel(target, credentials, args));

  // Eight distinct requests, cycled; each asks the server to compress its
  // responses with our algorithm (ServerContext::set_compression_algorithm).
  const char* encoding = nullptr;
  grpc_compression_algorithm_name(algorithm, &encoding);
  std::vector<EchoRequest> requests(std::max(1, std::min(count, 8)));
  for (size_t i = 0; i < requests.size(); ++i) {
    const int seed = static_cast<int>(i);
    requests[i].set_payload(payload == "random" ? RandomPayload(size, seed)
                                                : Payload(size, seed));
    requests[i].set_response_encoding(encoding);
  }
  auto request = [&](int i) -> const EchoRequest& {
    return requests[i % requests.size()];
  };

  // Per call, exactly as without the library.
  grpc::ClientContext context;
  context.set_compression_algorithm(algorithm);
  grpc::Status status;
  EchoResponse response;
  int echoed = 0;
  int mismatched = 0;
  if (rpc == "unary") {
    for (int i = 0; i < count && status.ok(); ++i) {
      grpc::ClientContext call;
      call.set_compression_algorithm(algorithm);
      status = stub->Unary(&call, request(i), &response);
      echoed += status.ok();
      mismatched += status.ok() && response.payload() != request(i).payload();
    }
  } else if (rpc == "bidi") {
    auto stream = stub->Bidi(&context);
    for (int i = 0; i < count; ++i) {
      if (!stream->Write(request(i)) || !stream->Read(&response)) break;
      ++echoed;
      mismatched += response.payload() != request(i).payload();
    }
    stream->WritesDone();
    status = stream->Finish();
  } else if (rpc == "client_stream") {
    auto writer = stub->ClientStream(&context, &response);
    int written = 0;
    while (written < count && writer->Write(request(written))) ++written;
    writer->WritesDone();
    status = writer->Finish();
    echoed = static_cast<int>(response.received_messages());
    const bool intact =
        echoed == written &&
        response.received_bytes() == static_cast<uint64_t>(size) * written &&
        (written == 0 || response.payload() == request(written - 1).payload());
    mismatched = status.ok() && !intact;
  } else {
    EchoRequest ask = request(0);
    ask.set_response_count(count);
    auto reader = stub->ServerStream(&context, ask);
    while (reader->Read(&response)) {
      ++echoed;
      mismatched += response.payload() != ask.payload();
    }
    status = reader->Finish();
  }

  std::printf("echo_client: mode=%s rpc=%s compression=%s size=%d\n",
              mode.c_str(), rpc.c_str(), compression.c_str(), size);
  std::printf("  messages: %d echoed, %d mismatched, status %s\n", echoed,
              mismatched, status.ok() ? "OK" : status.error_message().c_str());
  // What pooled-gzip did in this process.
  std::printf("  pool: %s\n",
              pooled_gzip::ToString(pooled_gzip::GetPoolStats()).c_str());
  for (const pooled_gzip::TrafficStats& row : pooled_gzip::GetTrafficStats()) {
    std::printf("  traffic: %s %s %s: %llu messages, ",
                row.compressing ? "compress" : "decompress",
                row.algorithm.c_str(), row.backend.c_str(),
                static_cast<unsigned long long>(row.messages));
    // Declining (sent plain: not smaller) is normal for tiny messages, and
    // only compressing does it; failures are errors.
    if (row.compressing) {
      std::printf("%llu declined, ",
                  static_cast<unsigned long long>(row.declined));
    }
    std::printf("%llu failed, %llu bytes saved, %llu us in the codec\n",
                static_cast<unsigned long long>(row.failed),
                static_cast<unsigned long long>(row.bytes_saved),
                static_cast<unsigned long long>(row.codec_nanoseconds / 1000));
  }
  std::printf("  core codec %s\n",
              pooled_gzip::CoreCodecActive() ? "active" : "not active");
  return status.ok() && mismatched == 0 ? 0 : 1;
}
