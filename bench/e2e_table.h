// The end-to-end benchmark as the demo shows it (e2e_bench --table): one
// markdown table of no compression, stock gzip and pooled gzip per payload
// size, then what pooling saved on the median round trip.

#ifndef POOLED_GZIP_BENCH_E2E_TABLE_H_
#define POOLED_GZIP_BENCH_E2E_TABLE_H_

#include <vector>

#include "e2e_results.h"

namespace pooled_gzip::bench {

// Prints the rows of every cell (setups none, stock and one pooled setup)
// to stdout.
void PrintComparisonTable(const RunInfo& info, const std::vector<Row>& rows);

}  // namespace pooled_gzip::bench

#endif  // POOLED_GZIP_BENCH_E2E_TABLE_H_
