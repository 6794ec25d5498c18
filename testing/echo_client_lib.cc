#include "echo_client_lib.h"

#include <grpc/compression.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <algorithm>
#include <chrono>

#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip::echo {
namespace {

using Clock = std::chrono::steady_clock;

// A few distinct requests, cycled, so that building payloads stays out of
// the measured loop and consecutive messages still differ.
class Requests {
 public:
  explicit Requests(const LoadOptions& options) {
    const char* encoding = nullptr;
    grpc_compression_algorithm_name(options.response_algorithm, &encoding);
    const int distinct = std::max(1, std::min(options.count, 8));
    for (int i = 0; i < distinct; ++i) {
      EchoRequest& request = requests_.emplace_back();
      request.set_payload(payloads::Make(options.payload, options.size, i));
      request.set_response_encoding(encoding);
    }
  }
  const EchoRequest& operator[](int i) const {
    return requests_[i % requests_.size()];
  }

 private:
  std::vector<EchoRequest> requests_;
};

void RunUnary(Echo::Stub* stub, const LoadOptions& options,
              const Requests& requests, LoadResult* result) {
  for (int i = 0; i < options.count; ++i) {
    const EchoRequest& request = requests[i];
    EchoResponse response;
    grpc::ClientContext context;
    const Clock::time_point start = Clock::now();
    result->status = stub->Unary(&context, request, &response);
    result->latencies_us.push_back(MicrosSince(start));
    if (!result->status.ok()) return;
    ++result->messages;
    if (response.payload() != request.payload()) ++result->mismatches;
  }
}

void RunBidi(Echo::Stub* stub, const LoadOptions& options,
             const Requests& requests, LoadResult* result) {
  grpc::ClientContext context;
  auto stream = stub->Bidi(&context);
  EchoResponse response;
  for (int i = 0; i < options.count; ++i) {
    const EchoRequest& request = requests[i];
    const Clock::time_point start = Clock::now();
    if (!stream->Write(request) || !stream->Read(&response)) break;
    result->latencies_us.push_back(MicrosSince(start));
    ++result->messages;
    if (response.payload() != request.payload()) ++result->mismatches;
  }
  stream->WritesDone();
  result->status = stream->Finish();
}

void RunClientStream(Echo::Stub* stub, const LoadOptions& options,
                     const Requests& requests, LoadResult* result) {
  grpc::ClientContext context;
  EchoResponse response;
  auto writer = stub->ClientStream(&context, &response);
  const EchoRequest* last = nullptr;
  int written = 0;
  for (int i = 0; i < options.count; ++i) {
    last = &requests[i];
    const Clock::time_point start = Clock::now();
    if (!writer->Write(*last)) break;
    result->latencies_us.push_back(MicrosSince(start));
    ++written;
  }
  writer->WritesDone();
  result->status = writer->Finish();
  if (!result->status.ok()) return;
  result->messages = static_cast<int>(response.received_messages());
  if (response.received_messages() != static_cast<uint64_t>(written) ||
      response.received_bytes() != uint64_t{options.size} * written ||
      (written > 0 && response.payload() != last->payload())) {
    ++result->mismatches;
  }
}

void RunServerStream(Echo::Stub* stub, const LoadOptions& options,
                     const Requests& requests, LoadResult* result) {
  EchoRequest request = requests[0];
  request.set_response_count(options.count);
  grpc::ClientContext context;
  auto reader = stub->ServerStream(&context, request);
  EchoResponse response;
  Clock::time_point start = Clock::now();
  while (reader->Read(&response)) {
    result->latencies_us.push_back(MicrosSince(start));
    ++result->messages;
    if (response.payload() != request.payload()) ++result->mismatches;
    start = Clock::now();
  }
  result->status = reader->Finish();
}

}  // namespace

bool ParseRpc(const std::string& name, Rpc* rpc) {
  for (Rpc candidate :
       {Rpc::kUnary, Rpc::kServerStream, Rpc::kClientStream, Rpc::kBidi}) {
    if (name == RpcName(candidate)) {
      *rpc = candidate;
      return true;
    }
  }
  return false;
}

const char* RpcName(Rpc rpc) {
  switch (rpc) {
    case Rpc::kUnary:
      return "unary";
    case Rpc::kServerStream:
      return "server_stream";
    case Rpc::kClientStream:
      return "client_stream";
    case Rpc::kBidi:
      return "bidi";
  }
  return "?";
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target, Mode mode,
                                           grpc_compression_algorithm algorithm,
                                           int level) {
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(algorithm);
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  auto credentials = grpc::InsecureChannelCredentials();
  if (mode == Mode::kStock) {
    return grpc::CreateCustomChannel(target, credentials, args);
  }
  // The level is process-wide: an unset one must not undo Configure's.
  if (level != kDefaultLevel) {
    Options process_wide = GetOptions();
    process_wide.level = level;
    if (!Configure(process_wide).ok()) return nullptr;
  }
  return CreateChannel(target, credentials, args);
}

void WaitForReadyWithin(grpc::ClientContext* context,
                        std::chrono::milliseconds timeout) {
  context->set_wait_for_ready(true);
  context->set_deadline(std::chrono::system_clock::now() + timeout);
}

std::string MakePayload(size_t size, uint32_t seed) {
  return payloads::Make(payloads::Kind::kWords, size, seed);
}

LoadResult RunLoad(Echo::Stub* stub, const LoadOptions& options) {
  LoadResult result;
  result.latencies_us.reserve(options.count);
  const Requests requests(options);
  const Clock::time_point start = Clock::now();
  switch (options.rpc) {
    case Rpc::kUnary:
      RunUnary(stub, options, requests, &result);
      break;
    case Rpc::kBidi:
      RunBidi(stub, options, requests, &result);
      break;
    case Rpc::kClientStream:
      RunClientStream(stub, options, requests, &result);
      break;
    case Rpc::kServerStream:
      RunServerStream(stub, options, requests, &result);
      break;
  }
  result.seconds = MicrosSince(start) / 1e6;
  return result;
}

double MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace pooled_gzip::echo
