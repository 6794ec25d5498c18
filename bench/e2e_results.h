// Turns the end-to-end benchmark's runs into table rows: percentiles and
// per-message figures, printed for people and written as JSON for
// bench/report.py.

#ifndef POOLED_GZIP_BENCH_E2E_RESULTS_H_
#define POOLED_GZIP_BENCH_E2E_RESULTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "direct_allocator.h"
#include "e2e_modes.h"
#include "e2e_runner.h"

namespace pooled_gzip::bench {

// All repetitions of one mode in one cell.
struct Row {
  Cell cell;
  Mode mode = Mode::kNone;
  RunResult total;                 // every repetition folded together
  std::vector<double> rep_p50_us;  // each repetition's median, for spread
  uint64_t peak_rss_bytes = 0;     // largest resident set seen in its runs
};

// What the JSON says about the run as a whole.
struct RunInfo {
  std::string label;    // e.g. "default heap"
  std::string payload;  // payload kind
  std::string heap;     // the glibc malloc tuning in force
  int reps = 0;
  int budget_ms = 0;
};

// The q-quantile (0..1) by nearest rank; 0 for no samples.
double Quantile(Latencies samples, double q);

// One line per mode of a cell plus the ratios, to stdout.
void PrintCell(const std::vector<Row>& rows_of_cell);

// The JSON document bench/report.py reads.
std::string ToJson(const RunInfo& info, const std::vector<Row>& rows);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_RESULTS_H_
