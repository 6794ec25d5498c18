#include "blocking_call.h"

namespace pooled_gzip::interop {

BlockingCall::BlockingCall(grpc::GenericStub* stub, const std::string& method,
                           grpc::ClientContext* context)
    : context_(context) {
  call_ = stub->PrepareCall(context, method, &queue_);
  call_->StartCall(this);
  started_ = Await();
}

BlockingCall::~BlockingCall() {
  if (!finished_) {
    context_->TryCancel();
    Finish();
  }
  call_.reset();
  queue_.Shutdown();
  void* tag;
  bool ok;
  while (queue_.Next(&tag, &ok)) {
  }
}

bool BlockingCall::Await() {
  void* tag;
  bool ok = false;
  return queue_.Next(&tag, &ok) && ok;
}

bool BlockingCall::Write(const grpc::ByteBuffer& message,
                         grpc::WriteOptions options) {
  if (!started_) return false;
  call_->Write(message, options, this);
  return Await();
}

bool BlockingCall::WritesDone() {
  if (!started_) return false;
  call_->WritesDone(this);
  return Await();
}

bool BlockingCall::Read(grpc::ByteBuffer* message) {
  if (!started_) return false;
  call_->Read(message, this);
  return Await();
}

grpc::Status BlockingCall::Finish() {
  grpc::Status status;
  call_->Finish(&status, this);
  Await();
  finished_ = true;
  return status;
}

}  // namespace pooled_gzip::interop
