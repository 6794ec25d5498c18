#include "e2e_runner.h"

#include <grpcpp/client_context.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "pooled_gzip/codec.h"

namespace pooled_gzip::bench {
namespace {

using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start)
      .count();
}

// What one client thread saw.
struct ThreadResult {
  uint64_t errors = 0;
  std::string first_error;
  Latencies latencies_us;

  void Fail(const std::string& what) {
    if (errors++ == 0) first_error = what;
  }
  size_t sent() const { return latencies_us.size() + errors; }
};

// Lines the client threads up after their setup (opening a stream), so that
// the measured window holds steady-state round trips only. The last thread
// to arrive starts the window: it runs `start` (taking the "before"
// snapshots) and sets the deadline, then all go.
class StartGate {
 public:
  StartGate(int threads, const Budget& budget, std::function<void()> start)
      : waiting_(threads), budget_(budget), start_(std::move(start)) {}

  void ArriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0) {
      start_();
      start_time_ = Clock::now();
      open_ = true;
      opened_.notify_all();
      return;
    }
    opened_.wait(lock, [this] { return open_; });
  }

  // Valid once ArriveAndWait has returned.
  Clock::time_point start_time() const { return start_time_; }

  bool Done(size_t sent) const {
    if (sent >= static_cast<size_t>(budget_.max_messages)) return true;
    return sent >= static_cast<size_t>(budget_.min_messages) &&
           Clock::now() >= start_time_ + budget_.duration;
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  int waiting_;
  bool open_ = false;
  const Budget& budget_;
  std::function<void()> start_;
  Clock::time_point start_time_;
};

bool EchoedIntact(const echo::EchoResponse& response, size_t size) {
  return response.payload().size() == size;
}

void UnaryLoop(echo::Echo::Stub* stub, const echo::EchoRequest& request,
               size_t size, StartGate& gate, ThreadResult* out) {
  gate.ArriveAndWait();
  echo::EchoResponse response;
  while (!gate.Done(out->sent())) {
    grpc::ClientContext context;
    const Clock::time_point start = Clock::now();
    const grpc::Status status = stub->Unary(&context, request, &response);
    const double micros = MicrosSince(start);
    if (!status.ok()) {
      out->Fail("Unary: " + status.error_message());
    } else if (!EchoedIntact(response, size)) {
      out->Fail("Unary: echoed payload has the wrong size");
    } else {
      out->latencies_us.push_back(micros);
    }
  }
}

void BidiLoop(echo::Echo::Stub* stub, const echo::EchoRequest& request,
              size_t size, StartGate& gate, ThreadResult* out) {
  grpc::ClientContext context;
  auto stream = stub->Bidi(&context);
  echo::EchoResponse response;
  // The first round trip also opens the stream: setup, not steady state.
  const bool opened = stream->Write(request) && stream->Read(&response);
  gate.ArriveAndWait();
  if (!opened) {
    out->Fail("Bidi: could not open the stream");
  } else {
    while (!gate.Done(out->sent())) {
      const Clock::time_point start = Clock::now();
      if (!stream->Write(request) || !stream->Read(&response)) {
        out->Fail("Bidi: stream broke");
        break;
      }
      const double micros = MicrosSince(start);
      if (!EchoedIntact(response, size)) {
        out->Fail("Bidi: echoed payload has the wrong size");
      } else {
        out->latencies_us.push_back(micros);
      }
    }
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (!status.ok()) out->Fail("Bidi: " + status.error_message());
}

}  // namespace

const char* RpcName(Rpc rpc) { return rpc == Rpc::kUnary ? "unary" : "bidi"; }

RunResult RunCell(ClientThreads& clients, echo::Echo::Stub* stub,
                  const Cell& cell, const std::string& payload,
                  const Budget& budget) {
  echo::EchoRequest request;
  request.set_payload(payload);
  std::vector<ThreadResult> results(cell.threads);

  PoolStats pool_before;
  AllocCounts allocs_before;
  ProcessUsage usage_before;
  StartGate gate(cell.threads, budget, [&] {
    pool_before = GetPoolStats();
    allocs_before = ReadAllocCounts();
    usage_before = ReadProcessUsage();
  });
  clients.Run(cell.threads, [&](int i) {
    if (cell.rpc == Rpc::kUnary) {
      UnaryLoop(stub, request, cell.size, gate, &results[i]);
    } else {
      BidiLoop(stub, request, cell.size, gate, &results[i]);
    }
  });
  RunResult run;
  run.wall_seconds = MicrosSince(gate.start_time()) * 1e-6;
  const ProcessUsage usage_after = ReadProcessUsage();
  run.allocs = ReadAllocCounts() - allocs_before;
  const PoolStats pool_after = GetPoolStats();

  run.usage.cpu_seconds = usage_after.cpu_seconds - usage_before.cpu_seconds;
  run.usage.minor_faults = usage_after.minor_faults - usage_before.minor_faults;
  run.pool = pool_after;
  run.pool.created = pool_after.created - pool_before.created;
  run.pool.reused = pool_after.reused - pool_before.reused;
  for (ThreadResult& result : results) {
    run.latencies_us.insert(run.latencies_us.end(), result.latencies_us.begin(),
                            result.latencies_us.end());
    if (result.errors > 0 && run.errors == 0) {
      run.first_error = result.first_error;
    }
    run.errors += result.errors;
  }
  run.messages = run.latencies_us.size();
  return run;
}

void Accumulate(const RunResult& run, RunResult* total) {
  total->messages += run.messages;
  if (run.errors > 0 && total->errors == 0) {
    total->first_error = run.first_error;
  }
  total->errors += run.errors;
  total->latencies_us.insert(total->latencies_us.end(),
                             run.latencies_us.begin(), run.latencies_us.end());
  total->wall_seconds += run.wall_seconds;
  total->usage.cpu_seconds += run.usage.cpu_seconds;
  total->usage.minor_faults += run.usage.minor_faults;
  total->allocs = total->allocs + run.allocs;
  total->pool.created += run.pool.created;
  total->pool.reused += run.pool.reused;
}

}  // namespace pooled_gzip::bench
