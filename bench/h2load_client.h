// h2load as bench/peers_bench's second client: an HTTP/2 load generator
// that shares no code with gRPC or pooled-gzip, posting the same request
// bytes to every server (bench/h2load_request.h) over 4 connections of 8
// streams each, 32 calls at once as our client's 32 threads make.
//
// h2load knows HTTP, not gRPC: a gRPC error comes as a 200 with the status
// in trailers it does not read. What tells a reply from an error is its
// bytes, so each run is held to them: the bytes h2load read must hold a
// correct reply for every request it counts as succeeded.

#ifndef POOLED_GZIP_BENCH_H2LOAD_CLIENT_H_
#define POOLED_GZIP_BENCH_H2LOAD_CLIENT_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "e2e_runner.h"
#include "h2load_request.h"

namespace pooled_gzip::bench {

inline constexpr int kH2loadConnections = 4;
inline constexpr int kH2loadStreamsPerConnection = 8;

// One server's echo method, and where h2load's files go.
struct H2loadTarget {
  std::string h2load;  // the program, a path
  std::string server;  // the server's name, for messages
  int port = 0;
  H2loadRequest request;
  std::string request_file;  // holds request.frame
  std::string log_file;      // h2load's log of each request of a run
};

// One request alone, so that every byte h2load reads is its reply's: the
// reply's gRPC frame size. Fails unless it succeeded and the frame is at
// least request.smallest_reply_frame (a gRPC error has none).
absl::StatusOr<size_t> ProbeReplyFrame(const H2loadTarget& target);

// One measured run: h2load warms its connections up for `warmup`, then
// measures for `duration`. `at_window_edge` is called as its measured
// window opens and again as it closes (the server's CPU clock is read
// there); an error of it ends the run with that error. Fails, quoting
// h2load's lines, when a request failed (CheckHttpOutcome) or when the
// bytes h2load read in its window are too few for a `reply_frame` reply to
// each request it counts as succeeded.
absl::StatusOr<RunResult> RunH2load(
    const H2loadTarget& target, size_t reply_frame, absl::Duration warmup,
    absl::Duration duration, absl::FunctionRef<absl::Status()> at_window_edge);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_H2LOAD_CLIENT_H_
