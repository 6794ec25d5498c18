#include "e2e_table.h"

#include <cstdio>
#include <map>
#include <string>

#include "payloads.h"

namespace pooled_gzip::bench {
namespace {

std::string DisplayName(const Setup& setup) {
  switch (setup.compression) {
    case Compression::kNone:
      return "none";
    case Compression::kStock:
      return "stock gzip";
    case Compression::kPooled:
      return "pooled gzip";
  }
  return "?";
}

double MessagesPerSecond(const RunResult& run) {
  return run.wall_seconds > 0
             ? static_cast<double>(run.messages) / run.wall_seconds
             : 0;
}

}  // namespace

void PrintComparisonTable(const RunInfo& info, const std::vector<Row>& rows) {
  if (rows.empty()) return;
  const Cell& first = rows.front().cell;
  std::string pooled = "-";
  for (const Setup& setup : info.setups) {
    if (setup.compression == Compression::kPooled) pooled = SetupName(setup);
  }
  std::printf(
      "Echo of %s payloads over %s RPCs on loopback, %d rounds interleaved, "
      "%d ms per setup and round, each setup's client and server in "
      "processes of their own; pooled gzip: %s\n\n",
      payloads::KindName(first.kind), RpcName(first.rpc), info.reps,
      info.budget_ms, pooled.c_str());
  std::printf("| size | setup | wire bytes/msg | p50 us | p99 us | msgs/s |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  // Median round trip per size and kind of setup.
  std::map<size_t, std::map<Compression, double>> p50;
  for (const Row& row : rows) {
    const double median = Quantile(row.total.latencies_us, 0.5);
    p50[row.cell.size][row.setup.compression] = median;
    std::printf("| %s | %s | %zu | %.1f | %.1f | %.0f |\n",
                payloads::SizeLabel(row.cell.size).c_str(),
                DisplayName(row.setup).c_str(), row.wire_bytes, median,
                Quantile(row.total.latencies_us, 0.99),
                MessagesPerSecond(row.total));
  }
  std::printf("\nWhat pooled-gzip saved (median round trip):\n");
  for (auto& [size, by_setup] : p50) {
    const double none = by_setup[Compression::kNone];
    const double stock = by_setup[Compression::kStock];
    const double pooled_us = by_setup[Compression::kPooled];
    if (none <= 0 || stock <= 0 || pooled_us <= 0) continue;
    std::printf(
        "  %-7s %.1fx faster than stock gzip (%.0f us -> %.0f us per "
        "message), %.2fx the time of no compression\n",
        payloads::SizeLabel(size).c_str(), stock / pooled_us, stock, pooled_us,
        pooled_us / none);
  }
  std::fflush(stdout);
}

}  // namespace pooled_gzip::bench
