#include "h2load_client.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "child_process.h"
#include "h2load_summary.h"

namespace pooled_gzip::bench {
namespace {

// What a correct reply adds to the bytes read beyond its gRPC frame, at
// least: three HTTP/2 frame headers (the response's HEADERS, its DATA, the
// trailers' HEADERS) of 9 bytes, and a header block of at least a byte in
// each HEADERS (":status", "grpc-status").
constexpr size_t kReplyFramingBytes = 3 * 9 + 2;

// h2load's lines at its measured window's edges (src/h2load.cc), which it
// flushes as it prints them.
constexpr absl::string_view kWindowOpens = "Main benchmark duration is started";
constexpr absl::string_view kWindowCloses = "Main benchmark duration is over";

// Beyond a run's own time: starting, connecting, printing the summary.
constexpr absl::Duration kSlack = absl::Seconds(30);

std::string Milliseconds(absl::Duration duration) {
  return absl::StrCat(absl::ToInt64Milliseconds(duration), "ms");
}

absl::StatusOr<std::unique_ptr<support::ChildProcess>> StartH2load(
    const H2loadTarget& target, int connections, int streams,
    const std::vector<std::string>& run_flags) {
  std::vector<std::string> argv = {
      target.h2load, absl::StrCat("--clients=", connections),
      absl::StrCat("--max-concurrent-streams=", streams), "--threads=1"};
  argv.insert(argv.end(), run_flags.begin(), run_flags.end());
  argv.push_back(absl::StrCat("--data=", target.request_file));
  for (const std::string& header : target.request.headers) {
    argv.push_back(absl::StrCat("--header=", header));
  }
  argv.push_back(
      absl::StrCat("http://127.0.0.1:", target.port, UnaryEchoPath()));
  return support::ChildProcess::Start(argv);
}

absl::Status Failure(const H2loadTarget& target, absl::string_view why,
                     absl::string_view printed) {
  return absl::UnavailableError(
      absl::StrCat("h2load against the ", target.server, " server on port ",
                   target.port, ": ", why, "; h2load printed:\n", printed));
}

// Waits for h2load to exit and reads its summary; a failed request or an
// unreadable summary is an error naming the server.
absl::StatusOr<H2loadSummary> FinishedSummary(const H2loadTarget& target,
                                              support::ChildProcess& h2load) {
  absl::StatusOr<int> exit_code = h2load.WaitForExit(kSlack);
  absl::StatusOr<H2loadSummary> summary = ParseH2loadSummary(h2load.output());
  if (!summary.ok()) {
    return Failure(target,
                   exit_code.ok()
                       ? absl::StrCat("no summary (exit code ", *exit_code, ")")
                       : std::string(exit_code.status().message()),
                   summary.status().message());
  }
  if (absl::Status outcome = CheckHttpOutcome(*summary); !outcome.ok()) {
    return Failure(target, outcome.message(), summary->lines);
  }
  if (!exit_code.ok() || *exit_code != 0) {
    return Failure(target,
                   exit_code.ok() ? absl::StrCat("exit code ", *exit_code)
                                  : std::string(exit_code.status().message()),
                   h2load.output());
  }
  return summary;
}

// Reads h2load's output up to the line that starts with `prefix`; a run
// that ends first is explained by its summary.
absl::Status AwaitLine(const H2loadTarget& target,
                       support::ChildProcess& h2load, absl::string_view prefix,
                       absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    absl::StatusOr<std::string> line = h2load.ReadLine(deadline - absl::Now());
    if (line.ok() && absl::StartsWith(*line, prefix)) return absl::OkStatus();
    if (line.ok()) continue;
    if (absl::StatusOr<H2loadSummary> summary = FinishedSummary(target, h2load);
        !summary.ok()) {
      return summary.status();
    }
    return Failure(target, absl::StrCat("no \"", prefix, "\""),
                   line.status().message());
  }
}

// The latency of each request of the window, from h2load's log (a line
// per request: start time, status, microseconds).
absl::Status ReadLatencies(const std::string& log_file, Latencies* out) {
  std::ifstream log(log_file);
  std::string line;
  while (std::getline(log, line)) {
    const std::vector<absl::string_view> fields = absl::StrSplit(line, '\t');
    double micros = 0;
    if (fields.size() != 3 || !absl::SimpleAtod(fields[2], &micros)) {
      return absl::DataLossError(absl::StrCat("h2load's log ", log_file,
                                              " has a line \"", line, "\""));
    }
    out->push_back(micros);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<size_t> ProbeReplyFrame(const H2loadTarget& target) {
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> h2load =
      StartH2load(target, 1, 1, {"--requests=1"});
  if (!h2load.ok()) return h2load.status();
  absl::StatusOr<H2loadSummary> summary = FinishedSummary(target, **h2load);
  if (!summary.ok()) return summary.status();
  // Outside a timed run h2load counts every byte: these are one reply's.
  if (summary->succeeded != 1 ||
      summary->traffic_data < target.request.smallest_reply_frame) {
    return Failure(target,
                   absl::StrCat("one request got ", summary->traffic_data,
                                " bytes of reply, where a correct one has at "
                                "least ",
                                target.request.smallest_reply_frame),
                   summary->lines);
  }
  return summary->traffic_data;
}

absl::StatusOr<RunResult> RunH2load(
    const H2loadTarget& target, size_t reply_frame, absl::Duration warmup,
    absl::Duration duration, absl::FunctionRef<absl::Status()> at_window_edge) {
  std::remove(target.log_file.c_str());  // h2load appends to it
  absl::StatusOr<std::unique_ptr<support::ChildProcess>> started =
      StartH2load(target, kH2loadConnections, kH2loadStreamsPerConnection,
                  {absl::StrCat("--duration=", Milliseconds(duration)),
                   absl::StrCat("--warm-up-time=", Milliseconds(warmup)),
                   absl::StrCat("--log-file=", target.log_file)});
  if (!started.ok()) return started.status();
  support::ChildProcess& h2load = **started;

  if (absl::Status opened =
          AwaitLine(target, h2load, kWindowOpens, warmup + kSlack);
      !opened.ok()) {
    return opened;
  }
  if (absl::Status edge = at_window_edge(); !edge.ok()) return edge;
  const absl::Time opened_at = absl::Now();
  if (absl::Status closed =
          AwaitLine(target, h2load, kWindowCloses, duration + kSlack);
      !closed.ok()) {
    return closed;
  }
  if (absl::Status edge = at_window_edge(); !edge.ok()) return edge;
  RunResult run;
  run.wall_seconds = absl::ToDoubleSeconds(absl::Now() - opened_at);

  absl::StatusOr<H2loadSummary> summary = FinishedSummary(target, h2load);
  if (!summary.ok()) return summary.status();
  // Its data bytes include the warm-up's; the total is the window's alone.
  // A request in flight as the window opened may have had part of its
  // reply read before it.
  const uint64_t in_flight = kH2loadConnections * kH2loadStreamsPerConnection;
  const uint64_t counted =
      summary->succeeded > in_flight ? summary->succeeded - in_flight : 0;
  const uint64_t needed = counted * (reply_frame + kReplyFramingBytes);
  if (summary->traffic_total < needed) {
    return Failure(
        target,
        absl::StrCat("it read ", summary->traffic_total,
                     " bytes in its window, fewer than the ", needed, " that ",
                     counted, " replies of ", reply_frame,
                     " bytes take: some calls failed (gRPC errors come as "
                     "HTTP 200 without a message)"),
        summary->lines);
  }
  if (absl::Status read = ReadLatencies(target.log_file, &run.latencies_us);
      !read.ok()) {
    return read;
  }
  if (run.latencies_us.size() != summary->succeeded) {
    return Failure(target,
                   absl::StrCat("its log has ", run.latencies_us.size(),
                                " requests, its summary ", summary->succeeded,
                                " succeeded"),
                   summary->lines);
  }
  run.messages = summary->succeeded;
  return run;
}

}  // namespace pooled_gzip::bench
