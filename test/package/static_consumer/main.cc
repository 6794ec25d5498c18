// A program linked with gRPC's archives and the static flavour of the
// installed package, run as a server and a client in separate processes,
// as a service and its callers are. Each side echoes gzip messages set up
// with pooled_gzip's calls and checks, from its own counters, who did the
// work: on the core codec, pooled writers and readers; on stock gRPC
// (linked without the link-time routing, nothing served), gRPC alone,
// nothing pooled or counted.
//
//   static_consumer server active|stock
//       Serves /consumer.Echo/{Echo,Stats,Quit} on a free loopback port,
//       receiving at most 4 MiB; prints "listening on 127.0.0.1:PORT",
//       and at exit its counters' deltas and peak RSS.
//   static_consumer client active|stock PORT
//       Echoes through that server; on the core codec also sends a gzip
//       bomb and an over-limit message, and checks the server's peak RSS.
//
// Exits 0 when every check passes.

#include <grpc/grpc.h>
#include <pooled_gzip/pooled_gzip.h>

#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

#include "../consumer/generic_echo.h"
#include "zeros_deflated.h"

namespace {

constexpr int kMaxReceiveBytes = 4 * 1024 * 1024;
constexpr int kEchoes = 20;

// Peak resident set size of this process, in KiB (0 if unknown).
uint64_t PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      return std::stoull(line.substr(6));
    }
  }
  return 0;
}

struct Counters {
  uint64_t pooled_writes = 0;
  uint64_t pooled_reads = 0;
  uint64_t compressed_messages = 0;
  uint64_t inflated_messages = 0;
  uint64_t refused = 0;
};

Counters Now() {
  Counters counters;
  const pooled_gzip::PoolStats pools = pooled_gzip::GetPoolStats();
  counters.pooled_writes = pools.writers.created + pools.writers.reused;
  counters.pooled_reads = pools.readers.created + pools.readers.reused;
  for (const pooled_gzip::TrafficStats& row : pooled_gzip::GetTrafficStats()) {
    (row.compressing ? counters.compressed_messages
                     : counters.inflated_messages) += row.messages;
    counters.refused += row.refused;
  }
  return counters;
}

Counters Delta(const Counters& before, const Counters& after) {
  return {after.pooled_writes - before.pooled_writes,
          after.pooled_reads - before.pooled_reads,
          after.compressed_messages - before.compressed_messages,
          after.inflated_messages - before.inflated_messages,
          after.refused - before.refused};
}

// Prints the deltas and checks them against the path in use: on the core
// codec pooled writers compress what is sent and pooled readers inflate
// what is received; on stock gRPC neither is used, and nothing is counted.
bool Report(const char* side, const std::string& expected,
            const Counters& delta) {
  const bool active = pooled_gzip::CoreCodecActive();
  std::cout << side << ": core codec " << (active ? "active" : "NOT active")
            << "; pooled writes " << delta.pooled_writes << ", pooled reads "
            << delta.pooled_reads << "; messages compressed "
            << delta.compressed_messages << ", inflated "
            << delta.inflated_messages << ", refused " << delta.refused
            << std::endl;
  bool ok = true;
  if (active != (expected == "active")) {
    std::cerr << side << ": expected the " << expected << " path\n";
    ok = false;
  }
  const bool writes =
      delta.pooled_writes >= kEchoes && delta.compressed_messages >= kEchoes;
  const bool reads =
      delta.pooled_reads >= kEchoes && delta.inflated_messages >= kEchoes;
  const bool nothing_pooled =
      delta.pooled_writes == 0 && delta.pooled_reads == 0 &&
      delta.compressed_messages == 0 && delta.inflated_messages == 0;
  if (expected == "active" ? !(writes && reads) : !nothing_pooled) {
    std::cerr << side << ": pooled writers and readers do not match the "
              << expected << " path\n";
    ok = false;
  }
  return ok;
}

// Echo echoes; Stats answers with this process's peak RSS; Quit lets main
// shut the server down.
class Service final : public grpc::CallbackGenericService {
 public:
  void WaitForQuit() {
    std::unique_lock<std::mutex> lock(mutex_);
    quit_cv_.wait(lock, [this] { return quit_; });
  }

 private:
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    const std::string method = context->method();
    if (method == "/consumer.Echo/Echo") return new consumer::EchoReactor;
    return new consumer::EchoReactor([this, method](grpc::ByteBuffer* message) {
      std::string reply;
      if (method == "/consumer.Echo/Stats") {
        reply = std::to_string(PeakRssKib());
      } else if (method == "/consumer.Echo/Quit") {
        Quit();
      }
      grpc::Slice slice(reply);
      *message = grpc::ByteBuffer(&slice, 1);
    });
  }

  void Quit() {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
    quit_cv_.notify_one();
  }

  std::mutex mutex_;
  std::condition_variable quit_cv_;
  bool quit_ = false;
};

int RunServer(const std::string& expected) {
  const Counters before = Now();
  Service service;
  int port = 0;
  std::unique_ptr<grpc::Server> server = consumer::StartGzipServer(
      &service, &port, [](grpc::ServerBuilder& builder) {
        builder.SetMaxReceiveMessageSize(kMaxReceiveBytes);
        pooled_gzip::EnableOnServer(builder);
      });
  if (server == nullptr) {
    std::cerr << "server: no server\n";
    return 1;
  }
  std::cout << "server: listening on 127.0.0.1:" << port << std::endl;
  service.WaitForQuit();
  server->Shutdown();
  const bool ok = Report("server", expected, Delta(before, Now()));
  std::cout << "server: peak RSS " << PeakRssKib() << " KiB" << std::endl;
  return ok ? 0 : 1;
}

// One unary call of `payload` to `method`; the response's bytes in `reply`.
grpc::Status Call(grpc::GenericStub* stub, const std::string& method,
                  grpc::ByteBuffer request, std::string* reply,
                  grpc_compression_algorithm algorithm = GRPC_COMPRESS_GZIP) {
  grpc::ClientContext context;
  context.set_compression_algorithm(algorithm);
  grpc::ByteBuffer response;
  const grpc::Status status =
      consumer::BlockingUnaryCall(stub, &context, method, request, &response);
  if (status.ok() && reply != nullptr) *reply = consumer::Bytes(response);
  return status;
}

grpc::ByteBuffer Plain(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// `gzip` as a message gRPC sends as it is, with the compressed flag set:
// grpc::ByteBuffer holds exactly the C core's buffer, whose raw form names
// the algorithm its bytes are compressed with.
grpc::ByteBuffer AlreadyGzipped(const std::string& gzip) {
  grpc::ByteBuffer buffer = Plain(gzip);
  static_assert(sizeof(grpc::ByteBuffer) == sizeof(grpc_byte_buffer*),
                "grpc::ByteBuffer wraps one grpc_byte_buffer*");
  (*reinterpret_cast<grpc_byte_buffer**>(&buffer))->data.raw.compression =
      GRPC_COMPRESS_GZIP;
  return buffer;
}

bool PeakRss(grpc::GenericStub* stub, uint64_t* kib) {
  std::string reply;
  if (!Call(stub, "/consumer.Echo/Stats", Plain(""), &reply).ok()) {
    return false;
  }
  *kib = std::stoull(reply);
  return true;
}

// A bomb and an over-limit message must be refused without the server
// inflating them, and the server must still serve.
bool CheckLimits(grpc::GenericStub* stub) {
  bool ok = true;
  uint64_t rss_before = 0;
  uint64_t rss_after = 0;
  const std::string bomb =
      pooled_gzip::plain_zlib::DeflateWithZeros("", uint64_t{1} << 30, 15 + 16);
  ok &= PeakRss(stub, &rss_before);
  const grpc::Status bomb_status =
      Call(stub, "/consumer.Echo/Echo", AlreadyGzipped(bomb), nullptr);
  ok &= PeakRss(stub, &rss_after);
  const uint64_t growth_kib = rss_after - rss_before;
  std::cout << "client: 1 GiB gzip bomb (" << bomb.size()
            << " bytes) -> status " << bomb_status.error_code() << " ("
            << bomb_status.error_message() << "); server peak RSS "
            << rss_before << " -> " << rss_after << " KiB, growth "
            << growth_kib << " KiB" << std::endl;
  if (bomb_status.ok() || growth_kib >= 32 * 1024) {
    std::cerr << "client: the bomb was not refused within 32 MiB\n";
    ok = false;
  }

  const std::string over_limit(5 * 1024 * 1024, 'x');
  const grpc::Status plain_status =
      Call(stub, "/consumer.Echo/Echo", Plain(over_limit), nullptr,
           GRPC_COMPRESS_NONE);
  const grpc::Status gzip_status =
      Call(stub, "/consumer.Echo/Echo", Plain(over_limit), nullptr);
  std::cout << "client: 5 MiB to a 4 MiB server -> plain status "
            << plain_status.error_code() << ", gzip status "
            << gzip_status.error_code() << " (" << gzip_status.error_message()
            << ")" << std::endl;
  if (plain_status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED ||
      gzip_status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) {
    std::cerr << "client: over-limit messages not RESOURCE_EXHAUSTED\n";
    ok = false;
  }
  return ok;
}

bool EchoAll(grpc::GenericStub* stub, const std::string& payload) {
  for (int i = 0; i < kEchoes; ++i) {
    std::string echoed;
    const grpc::Status status =
        Call(stub, "/consumer.Echo/Echo", Plain(payload), &echoed);
    if (!status.ok() || echoed != payload) {
      std::cerr << "client: echo " << i << " failed: " << status.error_code()
                << " " << status.error_message() << "\n";
      return false;
    }
  }
  return true;
}

int RunClient(const std::string& expected, const std::string& port) {
  const Counters before = Now();
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  grpc::GenericStub stub(pooled_gzip::CreateChannel(
      "127.0.0.1:" + port, grpc::InsecureChannelCredentials(), args));
  const std::string payload = consumer::CompressiblePayload();
  bool ok = EchoAll(&stub, payload);
  if (ok && expected == "active") {
    ok &= CheckLimits(&stub);
    const bool served = EchoAll(&stub, payload);
    std::cout << "client: echoes after the bomb "
              << (served ? "served" : "FAILED") << std::endl;
    ok &= served;
  }
  const Counters delta = Delta(before, Now());
  Call(&stub, "/consumer.Echo/Quit", Plain(""), nullptr);
  ok &= Report("client", expected, delta);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const std::string expected = argc > 2 ? argv[2] : "";
  if (expected != "active" && expected != "stock") {
    std::cerr << "usage: " << argv[0]
              << " server active|stock | client active|stock PORT\n";
    return 2;
  }
  if (mode == "server") return RunServer(expected);
  if (mode == "client" && argc > 3) return RunClient(expected, argv[3]);
  std::cerr << "usage: " << argv[0]
            << " server active|stock | client active|stock PORT\n";
  return 2;
}
