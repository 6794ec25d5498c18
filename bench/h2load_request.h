// What h2load sends an echo server and what a correct answer must at least
// weigh. The request is the one our client sends for the same cell (an
// EchoRequest holding payloads::Make(kind, size)), as a gRPC frame: a
// compressed flag and a big-endian length before the message, which a gzip
// setup's request carries compressed once by the reference zlib-6
// (testing/plain_zlib.h, core's parameters), so that every server gets the
// same bytes whatever compressor the client library would use.

#ifndef POOLED_GZIP_BENCH_H2LOAD_REQUEST_H_
#define POOLED_GZIP_BENCH_H2LOAD_REQUEST_H_

#include <cstddef>
#include <string>
#include <vector>

#include "payloads.h"

namespace pooled_gzip::bench {

// The gRPC frame prefix: one flag byte, four length bytes.
inline constexpr size_t kGrpcPrefixBytes = 5;

struct H2loadRequest {
  std::string frame;  // the request as h2load's -d file holds it
  // The smallest gRPC frame a correct reply (the payload echoed) can be:
  // plain, or gzip a quarter smaller than zlib-6 makes it. The servers'
  // encoders (Go's compress/gzip at 6, zlib-6, libdeflate-6, ISA-L-1) never
  // land more than a few percent below zlib-6's size; a gRPC error carries
  // no message at all.
  size_t smallest_reply_frame = 0;
  // HTTP/2 headers beyond h2load's own: gRPC's content type and trailers,
  // and for gzip the request's encoding and the replies it accepts (gzip
  // alone, which gRPC C++ and grpc-go then answer with).
  std::vector<std::string> headers;
};

H2loadRequest MakeH2loadRequest(payloads::Kind kind, size_t size, bool gzip);

// The unary echo method's HTTP/2 path: "/pooled_gzip.echo.Echo/Unary".
std::string UnaryEchoPath();

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_H2LOAD_REQUEST_H_
