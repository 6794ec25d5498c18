#include "e2e_runner.h"

#include <grpcpp/client_context.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::bench {
namespace {

using Clock = std::chrono::steady_clock;
using echo::MicrosSince;

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

// The counters in the order of the line, each with its member.
template <typename Visit>
void ForEachCounter(Counters& c, Visit visit) {
  visit("cpu_us", c.usage.cpu_seconds);
  visit("faults", c.usage.minor_faults);
  visit("allocs", c.allocs.allocs);
  visit("heap_bytes", c.allocs.bytes);
  visit("frees", c.allocs.frees);
  visit("deflate_state_allocs", c.allocs.deflate_state_allocs);
  visit("deflate_state_bytes", c.allocs.deflate_state_bytes);
  visit("inflate_state_allocs", c.allocs.inflate_state_allocs);
  visit("inflate_state_bytes", c.allocs.inflate_state_bytes);
  visit("deflate_inits", c.allocs.deflate_inits);
  visit("inflate_inits", c.allocs.inflate_inits);
  visit("pool_created", c.pool_created);
  visit("pool_reused", c.pool_reused);
  visit("compressed", c.compressed);
  visit("compress_ns", c.compress_ns);
  visit("decompressed", c.decompressed);
  visit("decompress_ns", c.decompress_ns);
  visit("inflated", c.inflated);
  visit("inflated_wire_bytes", c.inflated_wire_bytes);
  visit("rss_bytes", c.rss_bytes);
}

// "key=value" words of a line; the value of `rest_key`, if present, runs to
// the end of the line (it may hold spaces).
std::map<std::string, std::string> Words(const std::string& line,
                                         const std::string& rest_key) {
  std::map<std::string, std::string> words;
  absl::string_view text = line;
  const std::string rest_marker = " " + rest_key + "=";
  if (const size_t at = text.find(rest_marker); at != absl::string_view::npos) {
    words[rest_key] = std::string(text.substr(at + rest_marker.size()));
    text = text.substr(0, at);
  }
  for (absl::string_view word : absl::StrSplit(text, ' ')) {
    const size_t eq = word.find('=');
    if (eq == absl::string_view::npos) continue;
    words[std::string(word.substr(0, eq))] = std::string(word.substr(eq + 1));
  }
  return words;
}

bool ReadCountersFrom(const std::map<std::string, std::string>& words,
                      Counters* counters) {
  bool ok = true;
  ForEachCounter(*counters, [&](const char* key, auto& value) {
    auto it = words.find(key);
    if (it == words.end()) {
      ok = false;
      return;
    }
    double number = 0;
    if (!absl::SimpleAtod(it->second, &number)) ok = false;
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, double>) {
      value = number * 1e-6;  // cpu_us
    } else {
      value = static_cast<uint64_t>(number);
    }
  });
  return ok;
}

}  // namespace

bool ParseMeasuredRpc(const std::string& name, Rpc* rpc) {
  return echo::ParseRpc(name, rpc) &&
         (*rpc == Rpc::kUnary || *rpc == Rpc::kBidi);
}

Counters ReadCounters() {
  Counters counters;
  counters.usage = ReadProcessUsage();
  counters.allocs = ReadAllocCounts();
  const PoolStats pool = GetPoolStats();
  counters.pool_created = pool.created;
  counters.pool_reused = pool.reused;
  for (const TrafficStats& row : GetTrafficStats()) {
    // Every message the codec took time over, whatever its outcome.
    const uint64_t messages =
        row.messages + row.declined + row.failed + row.refused + row.skipped;
    (row.compressing ? counters.compressed : counters.decompressed) += messages;
    (row.compressing ? counters.compress_ns : counters.decompress_ns) +=
        row.codec_nanoseconds;
    if (!row.compressing) {
      counters.inflated += row.messages;
      counters.inflated_wire_bytes += row.bytes_in;
    }
  }
  counters.rss_bytes = CurrentRssBytes();
  return counters;
}

Counters operator-(const Counters& after, const Counters& before) {
  Counters d;
  d.usage.cpu_seconds = after.usage.cpu_seconds - before.usage.cpu_seconds;
  d.usage.minor_faults = after.usage.minor_faults - before.usage.minor_faults;
  d.allocs = after.allocs - before.allocs;
  d.pool_created = after.pool_created - before.pool_created;
  d.pool_reused = after.pool_reused - before.pool_reused;
  d.compressed = after.compressed - before.compressed;
  d.compress_ns = after.compress_ns - before.compress_ns;
  d.decompressed = after.decompressed - before.decompressed;
  d.decompress_ns = after.decompress_ns - before.decompress_ns;
  d.inflated = after.inflated - before.inflated;
  d.inflated_wire_bytes =
      after.inflated_wire_bytes - before.inflated_wire_bytes;
  d.rss_bytes = after.rss_bytes;
  return d;
}

void Accumulate(const Counters& run, Counters* total) {
  total->usage.cpu_seconds += run.usage.cpu_seconds;
  total->usage.minor_faults += run.usage.minor_faults;
  total->allocs = total->allocs + run.allocs;
  total->pool_created += run.pool_created;
  total->pool_reused += run.pool_reused;
  total->compressed += run.compressed;
  total->compress_ns += run.compress_ns;
  total->decompressed += run.decompressed;
  total->decompress_ns += run.decompress_ns;
  total->inflated += run.inflated;
  total->inflated_wire_bytes += run.inflated_wire_bytes;
  total->rss_bytes = std::max(total->rss_bytes, run.rss_bytes);
}

std::string ToWords(const Counters& counters) {
  Counters copy = counters;
  std::string out;
  ForEachCounter(copy, [&](const char* key, auto& value) {
    if (!out.empty()) out += ' ';
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, double>) {
      absl::StrAppend(&out, key, "=", value * 1e6);
    } else {
      absl::StrAppend(&out, key, "=", value);
    }
  });
  return out;
}

bool FromWords(const std::string& line, Counters* counters) {
  return ReadCountersFrom(Words(line, "error"), counters);
}

DirectString ToLine(const RunResult& run) {
  DirectString line = "result ";
  line += ToWords(run.spent).c_str();
  line += absl::StrCat(" messages=", run.messages, " errors=", run.errors,
                       " wall_s=", run.wall_seconds)
              .c_str();
  line += " latencies=";
  char number[32];
  for (size_t i = 0; i < run.latencies_us.size(); ++i) {
    std::snprintf(number, sizeof(number), i == 0 ? "%.1f" : ",%.1f",
                  run.latencies_us[i]);
    line += number;
  }
  // Last: it may hold spaces. Newlines would end the line early.
  std::string error = run.first_error;
  for (char& c : error) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  line += " error=";
  line += error.c_str();
  return line;
}

bool FromLine(const std::string& line, RunResult* run) {
  if (line.rfind("result ", 0) != 0) return false;
  const std::map<std::string, std::string> words = Words(line, "error");
  *run = RunResult();
  if (!ReadCountersFrom(words, &run->spent)) return false;
  auto get = [&](const char* key) -> const std::string* {
    auto it = words.find(key);
    return it == words.end() ? nullptr : &it->second;
  };
  const std::string* messages = get("messages");
  const std::string* errors = get("errors");
  const std::string* wall = get("wall_s");
  const std::string* latencies = get("latencies");
  if (messages == nullptr || errors == nullptr || wall == nullptr ||
      latencies == nullptr || !absl::SimpleAtoi(*messages, &run->messages) ||
      !absl::SimpleAtoi(*errors, &run->errors) ||
      !absl::SimpleAtod(*wall, &run->wall_seconds)) {
    return false;
  }
  for (absl::string_view item :
       absl::StrSplit(*latencies, ',', absl::SkipEmpty())) {
    double value = 0;
    if (!absl::SimpleAtod(item, &value)) return false;
    run->latencies_us.push_back(value);
  }
  if (const std::string* error = get("error")) run->first_error = *error;
  return true;
}

RunResult RunCell(ClientThreads& clients, echo::Echo::Stub* stub,
                  const Cell& cell, const std::string& payload,
                  const Budget& budget) {
  echo::EchoRequest request;
  request.set_payload(payload);
  std::vector<ThreadResult> results(cell.threads);

  Counters before;
  StartGate gate(cell.threads, budget, [&] { before = ReadCounters(); });
  clients.Run(cell.threads, [&](int i) {
    if (cell.rpc == Rpc::kUnary) {
      UnaryLoop(stub, request, cell.size, gate, &results[i]);
    } else {
      BidiLoop(stub, request, cell.size, gate, &results[i]);
    }
  });
  RunResult run;
  run.wall_seconds = MicrosSince(gate.start_time()) * 1e-6;
  run.spent = ReadCounters() - before;
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
  Accumulate(run.spent, &total->spent);
}

}  // namespace pooled_gzip::bench
