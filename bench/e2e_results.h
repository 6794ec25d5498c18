// Turns the end-to-end benchmark's runs into table rows: percentiles and
// per-message figures of both processes, printed for people and written as
// JSON for bench/report.py.

#ifndef POOLED_GZIP_BENCH_E2E_RESULTS_H_
#define POOLED_GZIP_BENCH_E2E_RESULTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "direct_allocator.h"
#include "e2e_link.h"
#include "e2e_runner.h"
#include "e2e_setups.h"

namespace pooled_gzip::bench {

// All repetitions of one setup in one cell.
struct Row {
  Cell cell;
  Setup setup;
  RunResult total;                     // client side, every repetition folded
  Counters server;                     // what the server spent meanwhile
  std::vector<double> rep_p50_us;      // each repetition's median, for pairing
  std::vector<double> rep_msgs_per_s;  // and its round trips per second
  size_t request_bytes = 0;            // one request, serialized
  size_t wire_bytes = 0;               // the same on the wire, in this setup
};

// What the JSON says about the run as a whole.
struct RunInfo {
  std::string label;  // e.g. "default heap"
  std::string heap;   // the glibc malloc tuning in force
  int reps = 0;
  int budget_ms = 0;
  int load_budget_ms = 0;
  std::vector<Setup> setups;
  std::string default_setup;  // the library's default, as a setup name
  // The backend that inflates gzip in every pooled setup (Options::decoder
  // unset: the library's default, whoever compressed).
  std::string gzip_decoder;
  std::string pin = "none";            // --pin
  bool fresh_pairs = false;            // new processes for every run
  std::string link_name = "loopback";  // --link as asked
  LinkState link;                      // what the run got
};

// The q-quantile (0..1) by nearest rank; 0 for no samples.
double Quantile(Latencies samples, double q);

// One line per setup of a cell plus ratios to stock, to stdout.
void PrintCell(const std::vector<Row>& rows_of_cell);

// The JSON document bench/report.py reads.
std::string ToJson(const RunInfo& info, const std::vector<Row>& rows);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_RESULTS_H_
