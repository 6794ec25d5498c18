// Drives the echo service: channels in either mode, payloads, and a load
// loop that measures round trips. Shared by the tests and benchmarks.

#ifndef POOLED_GZIP_TESTING_ECHO_CLIENT_LIB_H_
#define POOLED_GZIP_TESTING_ECHO_CLIENT_LIB_H_

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "echo.grpc.pb.h"
#include "payloads.h"

namespace pooled_gzip::echo {

enum class Mode { kPooled, kStock };
// The echo service's four kinds of call; the benchmarks measure two.
enum class Rpc { kUnary, kServerStream, kClientStream, kBidi };

// "unary", "server_stream", "client_stream", "bidi", and back.
bool ParseRpc(const std::string& name, Rpc* rpc);
const char* RpcName(Rpc rpc);

// A channel whose default algorithm is `algorithm`: stock gRPC, or created
// through pooled_gzip::CreateChannel.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target, Mode mode,
                                           grpc_compression_algorithm algorithm,
                                           int level = -1);

// Gives `context` a deadline `timeout` from now and wait-for-ready, for a
// call that may be the first on its channel. A fresh channel may still be
// connecting, or its first connection attempt may have failed; a fail-fast
// call then fails UNAVAILABLE at once, which says nothing of what the test
// checks. The deadline bounds the wait: a server that never answers fails
// the call instead of hanging the test.
void WaitForReadyWithin(grpc::ClientContext* context,
                        std::chrono::milliseconds timeout);

// Deterministic random words and spaces, `seed` varying them:
// payloads::Make(payloads::Kind::kWords, size, seed), under the name the
// tests use.
std::string MakePayload(size_t size, uint32_t seed);

struct LoadOptions {
  Rpc rpc = Rpc::kUnary;
  size_t size = 1024;
  int count = 1000;
  // Asked of the server for its responses (EchoRequest.response_encoding).
  grpc_compression_algorithm response_algorithm = GRPC_COMPRESS_NONE;
  // What the requests carry.
  payloads::Kind payload = payloads::Kind::kWords;
};

struct LoadResult {
  grpc::Status status;
  int messages = 0;    // payloads echoed back
  int mismatches = 0;  // echoed payloads that differ from what was sent
  double seconds = 0;
  // One per message: unary and bidi, the round trip; client streaming, the
  // write; server streaming, the wait for each response.
  std::vector<double> latencies_us;
};

LoadResult RunLoad(Echo::Stub* stub, const LoadOptions& options);

// Microseconds since `start`, the unit round trips are timed in.
double MicrosSince(std::chrono::steady_clock::time_point start);

}  // namespace pooled_gzip::echo

#endif  // POOLED_GZIP_TESTING_ECHO_CLIENT_LIB_H_
