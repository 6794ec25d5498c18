// What h2load (nghttp2's HTTP/2 load generator) reports at the end of a run:
// the counts of its "requests:", "status codes:" and "traffic:" lines, read
// by name, not by position, so that a reordered or extended line still
// reads. Every count h2load gives is of its measured window, except the
// headers and data bytes, which it counts from its start, warm-up included
// (h2load 1.52, src/h2load.cc and src/h2load_http2_session.cc).

#ifndef POOLED_GZIP_BENCH_H2LOAD_SUMMARY_H_
#define POOLED_GZIP_BENCH_H2LOAD_SUMMARY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pooled_gzip::bench {

struct H2loadSummary {
  // "requests: N total, N started, N done, N succeeded, N failed,
  // N errored, N timeout"
  uint64_t total = 0;
  uint64_t done = 0;
  uint64_t succeeded = 0;  // closed cleanly with a 2xx or 3xx
  uint64_t failed = 0;
  uint64_t errored = 0;
  uint64_t timeout = 0;
  // "status codes: N 2xx, N 3xx, N 4xx, N 5xx"
  uint64_t status_2xx = 0;
  uint64_t status_3xx = 0;
  uint64_t status_4xx = 0;
  uint64_t status_5xx = 0;
  // "traffic: 1.63MB (1708844) total, ... (106752) headers (...),
  // ... (1276512) data": every byte read in the window; HTTP/2 DATA
  // payloads since the start.
  uint64_t traffic_total = 0;
  uint64_t traffic_data = 0;
  // Those three lines as h2load printed them, for messages.
  std::string lines;
};

// The summary in h2load's output; INVALID_ARGUMENT, quoting what there is,
// when a line or a count is missing.
absl::StatusOr<H2loadSummary> ParseH2loadSummary(absl::string_view output);

// OK when no request failed, errored or timed out, none was answered with
// a status other than 2xx, and at least one succeeded; else UNAVAILABLE
// saying which. HTTP status only: a gRPC error arrives as a 200.
absl::Status CheckHttpOutcome(const H2loadSummary& summary);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_H2LOAD_SUMMARY_H_
