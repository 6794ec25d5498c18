// Drives the echo service: channels in either mode, payloads, and a load
// loop that measures round trips. Shared by the example client and tests.

#ifndef POOLED_GZIP_EXAMPLES_ECHO_CLIENT_LIB_H_
#define POOLED_GZIP_EXAMPLES_ECHO_CLIENT_LIB_H_

#include <grpcpp/channel.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "echo.grpc.pb.h"
#include "payloads.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip::echo {

enum class Mode { kPooled, kStock };
enum class Rpc { kUnary, kServerStream, kClientStream, kBidi };

bool ParseMode(const std::string& name, Mode* mode);
bool ParseRpc(const std::string& name, Rpc* rpc);
const char* RpcName(Rpc rpc);

// Parses "zlib", "libdeflate" or "isal".

// The --backend and --level flags of the example programs: calls
// pooled_gzip::Configure with them (an empty `backend` keeps the
// configured one, a `level` of kDefaultLevel the backend's default), or
// nothing if both are unset. INVALID_ARGUMENT for an unknown backend or a
// level the backend does not have.
absl::Status ConfigureFromFlags(const std::string& backend, int level);

// "libdeflate level 6" or "zlib at its default level": what Configure
// left in force.
std::string CodecDescription();

// What the codec did, one line per GetTrafficStats() row:
// "compress gzip libdeflate: 5 messages, 0 declined or failed". The example
// programs print them, and the interop tests read from them which backend
// did the work.
std::vector<std::string> TrafficLines();

// A channel whose default algorithm is `algorithm`: stock gRPC, or created
// through pooled_gzip::CreateChannel.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target, Mode mode,
                                           grpc_compression_algorithm algorithm,
                                           int level = -1);

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

// The q-quantile (0..1) of `values`, which it sorts.
double Quantile(std::vector<double>* values, double q);

}  // namespace pooled_gzip::echo

#endif  // POOLED_GZIP_EXAMPLES_ECHO_CLIENT_LIB_H_
