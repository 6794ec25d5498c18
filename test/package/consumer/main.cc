// A program that uses the installed package as a user's would, built in
// several link orders. It echoes gzip messages through a pooled server and
// channel in this process, then checks that CoreCodecActive() tells the
// truth: on the core codec gRPC inflates received messages with pooled
// readers; on the fallback path with its own, but pooled writers still
// compress what is sent.
//
//   consumer [active|fallback]   also requires that path; exits 0 when all
//                                checks pass.

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <pooled_gzip/pooled_gzip.h>

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>

namespace {

class EchoReactor final : public grpc::ServerGenericBidiReactor {
 public:
  EchoReactor() { StartRead(&message_); }
  void OnReadDone(bool ok) override {
    if (ok) {
      StartWrite(&message_);
    } else {
      Finish(grpc::Status::OK);
    }
  }
  void OnWriteDone(bool ok) override {
    if (ok) {
      StartRead(&message_);
    } else {
      Finish(grpc::Status::CANCELLED);
    }
  }
  void OnDone() override { delete this; }

 private:
  grpc::ByteBuffer message_;
};

class EchoService final : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* /*context*/) override {
    return new EchoReactor;
  }
};

bool EchoOnce(grpc::GenericStub* stub, const std::string& payload) {
  grpc::Slice slice(payload);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  grpc::Status status;
  stub->UnaryCall(&context, "/consumer.Echo/Echo", grpc::StubOptions(),
                  &request, &response, [&](grpc::Status s) {
                    std::lock_guard<std::mutex> lock(mutex);
                    status = std::move(s);
                    done = true;
                    done_cv.notify_one();
                  });
  std::unique_lock<std::mutex> lock(mutex);
  done_cv.wait(lock, [&] { return done; });
  std::string echoed;
  return status.ok() && pooled_gzip::DecodeToString(response, &echoed).ok() &&
         echoed == payload;
}

uint64_t Checkouts(const pooled_gzip::PoolCounters& counters) {
  return counters.created + counters.reused;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string expected = argc > 1 ? argv[1] : "";
  EchoService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.SetDefaultCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  builder.RegisterCallbackGenericService(&service);
  pooled_gzip::EnableOnServer(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    std::cerr << "consumer: no server\n";
    return 1;
  }
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  grpc::GenericStub stub(
      pooled_gzip::CreateChannel("127.0.0.1:" + std::to_string(port),
                                 grpc::InsecureChannelCredentials(), args));

  std::string payload;
  while (payload.size() < 8192) payload += "consumer payload, compressible ";
  const pooled_gzip::PoolStats before = pooled_gzip::GetPoolStats();
  constexpr int kCalls = 20;
  for (int i = 0; i < kCalls; ++i) {
    if (!EchoOnce(&stub, payload)) {
      std::cerr << "consumer: echo " << i << " failed\n";
      return 1;
    }
  }
  const pooled_gzip::PoolStats after = pooled_gzip::GetPoolStats();
  server->Shutdown();

  const bool active = pooled_gzip::CoreCodecActive();
  const uint64_t reads = Checkouts(after.readers) - Checkouts(before.readers);
  const uint64_t writes = Checkouts(after.writers) - Checkouts(before.writers);
  std::cout << "consumer: core codec " << (active ? "active" : "not active")
            << "; pooled writes " << writes << ", pooled reads " << reads
            << " for " << kCalls << " gzip echoes\n";
  // Requests and responses: 2 per call, compressed by pooled writers on
  // either path; read by pooled readers exactly when the core codec is on.
  bool ok = writes == 2 * kCalls && reads == (active ? 2 * kCalls : 0);
  if (!ok) std::cerr << "consumer: CoreCodecActive() does not match\n";
  if (!expected.empty() && expected != (active ? "active" : "fallback")) {
    std::cerr << "consumer: expected the " << expected << " path\n";
    ok = false;
  }
  return ok ? 0 : 1;
}
