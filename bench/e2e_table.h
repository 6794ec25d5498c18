// The end-to-end benchmark as the demo shows it (e2e_bench --table): one
// markdown table of no compression, stock gzip and each pooled setup (named
// by backend and level) per payload size, then what each pooled setup saved
// on the median round trip against stock gzip and against no compression,
// on the link the run had.

#ifndef POOLED_GZIP_BENCH_E2E_TABLE_H_
#define POOLED_GZIP_BENCH_E2E_TABLE_H_

#include <vector>

#include "e2e_results.h"

namespace pooled_gzip::bench {

// Prints the rows of every cell (setups none, stock and pooled ones) to
// stdout.
void PrintComparisonTable(const RunInfo& info, const std::vector<Row>& rows);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_TABLE_H_
