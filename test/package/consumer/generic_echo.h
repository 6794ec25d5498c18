// A generic echo service and one unary call through plain gRPC, shared by
// the consumers of the installed package.

#ifndef POOLED_GZIP_TEST_PACKAGE_CONSUMER_GENERIC_ECHO_H_
#define POOLED_GZIP_TEST_PACKAGE_CONSUMER_GENERIC_ECHO_H_

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace consumer {

// Replies to each message of a call with the message itself, or with what
// `answer` makes of it in its place, until the client is done.
class EchoReactor final : public grpc::ServerGenericBidiReactor {
 public:
  explicit EchoReactor(std::function<void(grpc::ByteBuffer*)> answer = nullptr)
      : answer_(std::move(answer)) {
    StartRead(&message_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    if (answer_) answer_(&message_);
    StartWrite(&message_);
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
  std::function<void(grpc::ByteBuffer*)> answer_;
  grpc::ByteBuffer message_;
};

class EchoService final : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* /*context*/) override {
    return new EchoReactor;
  }
};

// A server of `service` on a free loopback port replying with gzip;
// `set_up` sees the builder last, before it builds.
template <typename SetUp>
std::unique_ptr<grpc::Server> StartGzipServer(
    grpc::CallbackGenericService* service, int* port, SetUp set_up) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           port);
  builder.SetDefaultCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  builder.RegisterCallbackGenericService(service);
  set_up(builder);
  return builder.BuildAndStart();
}

// A plain gRPC channel to a loopback `port` that sends gzip.
inline std::shared_ptr<grpc::Channel> GzipChannelTo(int port) {
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials(), args);
}

// A payload gzip shrinks, so that every message goes out compressed.
inline std::string CompressiblePayload() {
  std::string payload;
  while (payload.size() < 8192) payload += "consumer payload, compressible ";
  return payload;
}

// One unary call of `request` to `method`, waited for; the response as
// received.
inline grpc::Status BlockingUnaryCall(grpc::GenericStub* stub,
                                      grpc::ClientContext* context,
                                      const std::string& method,
                                      const grpc::ByteBuffer& request,
                                      grpc::ByteBuffer* response) {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  grpc::Status status;
  stub->UnaryCall(context, method, grpc::StubOptions(), &request, response,
                  [&](grpc::Status s) {
                    std::lock_guard<std::mutex> lock(mutex);
                    status = std::move(s);
                    done = true;
                    done_cv.notify_one();
                  });
  std::unique_lock<std::mutex> lock(mutex);
  done_cv.wait(lock, [&] { return done; });
  return status;
}

// One unary call of `payload` to the echo method; the response as received.
inline grpc::Status CallEcho(grpc::GenericStub* stub,
                             const std::string& payload,
                             grpc::ByteBuffer* response) {
  grpc::Slice slice(payload);
  grpc::ClientContext context;
  return BlockingUnaryCall(stub, &context, "/consumer.Echo/Echo",
                           grpc::ByteBuffer(&slice, 1), response);
}

// The bytes of a buffer gRPC already decompressed.
inline std::string Bytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

}  // namespace consumer

#endif  // POOLED_GZIP_TEST_PACKAGE_CONSUMER_GENERIC_ECHO_H_
