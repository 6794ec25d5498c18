// A client that the faults test kills with SIGKILL, so that its connections
// die as abruptly as a crashed peer's: no RST_STREAM, no GOAWAY, just a
// closed socket. Usage: abrupt_client TARGET STREAMS
//
// Opens STREAMS server-streaming calls whose gzip responses never end, and
// as many bidi calls that keep sending gzip requests; once every call has
// received its first message it prints "ready" and keeps the calls busy
// until it is killed.

#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "echo.grpc.pb.h"
#include "echo_client_lib.h"

namespace {

using pooled_gzip::echo::Echo;
using pooled_gzip::echo::EchoRequest;
using pooled_gzip::echo::EchoResponse;

struct Streams {
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<EchoResponse>>> readers;
  std::vector<
      std::unique_ptr<grpc::ClientReaderWriter<EchoRequest, EchoResponse>>>
      bidis;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s TARGET STREAMS\n", argv[0]);
    return 2;
  }
  const int streams = std::atoi(argv[2]);
  auto stub = Echo::NewStub(pooled_gzip::echo::MakeChannel(
      argv[1], pooled_gzip::echo::Mode::kPooled, GRPC_COMPRESS_GZIP));
  EchoRequest request;
  request.set_payload(pooled_gzip::echo::MakePayload(64 * 1024, 11));
  request.set_response_encoding("gzip");
  request.set_response_count(1u << 30);

  Streams s;
  EchoResponse response;
  for (int i = 0; i < streams; ++i) {
    s.contexts.push_back(std::make_unique<grpc::ClientContext>());
    s.readers.push_back(stub->ServerStream(s.contexts.back().get(), request));
    if (!s.readers.back()->Read(&response)) return 1;
    s.contexts.push_back(std::make_unique<grpc::ClientContext>());
    s.bidis.push_back(stub->Bidi(s.contexts.back().get()));
    if (!s.bidis.back()->Write(request) || !s.bidis.back()->Read(&response)) {
      return 1;
    }
  }
  std::printf("ready\n");
  std::fflush(stdout);
  // Keep both directions compressing until the kill: bidi writes, and a
  // reader per server stream so its flow-control window keeps opening.
  std::vector<std::thread> readers;
  for (auto& reader : s.readers) {
    readers.emplace_back([&reader] {
      EchoResponse r;
      while (reader->Read(&r)) {
      }
    });
  }
  for (;;) {
    for (auto& bidi : s.bidis) {
      if (!bidi->Write(request) || !bidi->Read(&response)) return 1;
    }
  }
}
