// A blocking call on grpc::GenericStub: one operation at a time, each waited
// for on the call's own completion queue. gRPC C++ has no synchronous generic
// stub, and the interop client needs raw ByteBuffers per message: to send a
// message pre-compressed or plain with no-compression, and to see whether
// each response arrived compressed.

#ifndef POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_BLOCKING_CALL_H_
#define POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_BLOCKING_CALL_H_

#include <grpcpp/client_context.h>
#include <grpcpp/completion_queue.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>

#include <memory>
#include <string>

namespace pooled_gzip::interop {

class BlockingCall {
 public:
  // Starts a call of `method` ("/package.Service/Method"). `context` must
  // outlive the call; set its compression algorithm before this.
  BlockingCall(grpc::GenericStub* stub, const std::string& method,
               grpc::ClientContext* context);
  ~BlockingCall();
  BlockingCall(const BlockingCall&) = delete;
  BlockingCall& operator=(const BlockingCall&) = delete;

  // Each returns false once the call is broken; Finish then says why.
  bool Write(const grpc::ByteBuffer& message, grpc::WriteOptions options = {});
  bool WritesDone();
  bool Read(grpc::ByteBuffer* message);
  grpc::Status Finish();

 private:
  // Waits for the one operation in flight.
  bool Await();

  grpc::ClientContext* context_;
  grpc::CompletionQueue queue_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_BLOCKING_CALL_H_
