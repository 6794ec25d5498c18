// Judges what the wire relay recorded during an echo client pass against
// what each side should have sent: compression per direction, every
// message's content, and that every RPC kind and size was exercised.

#ifndef POOLED_GZIP_TEST_INTEROP_HARNESS_ECHO_WIRE_CHECKS_H_
#define POOLED_GZIP_TEST_INTEROP_HARNESS_ECHO_WIRE_CHECKS_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "wire_record.h"

namespace pooled_gzip::interop {

// How one side compresses the messages it sends in a run.
enum class Sending {
  // No grpc-encoding other than identity, no message flagged: what every
  // sender must do when compression is off.
  kNothing,
  // grpc-encoding is the algorithm and every message is flagged: the
  // plugin's contract, and also what grpc-go and grpc-js do.
  kEveryMessage,
  // gRPC core's own rule (stock C++, Python grpcio): grpc-encoding is the
  // algorithm, but a message whose compressed form would be larger goes out
  // unflagged; so 1-byte payloads are plain and 1 KiB and up compressed.
  kCoreRule,
  // grpc-js clients against gRPC C++ servers: grpc-encoding is the
  // algorithm and each call's first message is flagged; later ones may be
  // plain. grpc-js stops compressing once it reads the server's
  // grpc-accept-encoding and finds its algorithm missing; gRPC C++ writes
  // that list as "identity, deflate, gzip" and grpc-js 1.14 splits it on ','
  // without trimming, so it never finds " gzip". (It would stop for the whole
  // channel; the suite's Node client opens a channel per call.)
  kFirstMessageOfEachCall,
};

const char* SendingName(Sending sending);

struct EchoExpectation {
  std::string algorithm;  // "gzip" or "deflate"; ignored for kNothing
  Sending requests = Sending::kNothing;
  Sending responses = Sending::kNothing;
  // The payload of the `seed`-th request of one RPC kind and size.
  std::function<std::string(size_t size, int seed)> payload;
  std::vector<std::string> rpcs;  // "unary", "server_stream", ...
  std::vector<size_t> sizes;
  int count = 0;  // messages per RPC (calls, for unary)
};

struct EchoWireReport {
  std::vector<std::string> failures;
  // One line per RPC kind and size: what each direction looked like.
  std::vector<std::string> observations;
};

EchoWireReport CheckEchoWire(const std::vector<StreamRecord>& streams,
                             const EchoExpectation& expectation);

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_HARNESS_ECHO_WIRE_CHECKS_H_
