#include "e2e_table.h"

#include <cstdio>
#include <map>
#include <string>

#include "absl/strings/str_format.h"
#include "payloads.h"

namespace pooled_gzip::bench {
namespace {

// Two pooled setups must not print alike: backend and level, and which is
// the library's default.
std::string DisplayName(const Setup& setup) {
  switch (setup.compression) {
    case Compression::kNone:
      return "none";
    case Compression::kStock:
      return "stock gzip";
    case Compression::kPooled:
      return "pooled gzip " + SetupName(setup) +
             (setup.is_default ? " (default)" : "");
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
  std::string pooled;
  for (const Setup& setup : info.setups) {
    if (setup.compression != Compression::kPooled) continue;
    if (!pooled.empty()) pooled += ", ";
    pooled += DisplayName(setup);
  }
  std::printf(
      "Echo of %s payloads over %s RPCs, link: %s; %d rounds interleaved, "
      "%d ms per setup and round, each setup's client and server in "
      "processes of their own; pooled: %s\n\n",
      payloads::KindName(first.kind), RpcName(first.rpc),
      info.link.description.c_str(), info.reps, info.budget_ms,
      pooled.empty() ? "-" : pooled.c_str());
  std::printf("| size | setup | wire bytes/msg | p50 us | p99 us | msgs/s |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  // Median round trip per size and setup.
  std::map<size_t, std::map<std::string, double>> p50;
  for (const Row& row : rows) {
    const double median = Quantile(row.total.latencies_us, 0.5);
    p50[row.cell.size][SetupName(row.setup)] = median;
    std::printf("| %s | %s | %zu | %.1f | %.1f | %.0f |\n",
                payloads::SizeLabel(row.cell.size).c_str(),
                DisplayName(row.setup).c_str(), row.wire_bytes, median,
                Quantile(row.total.latencies_us, 0.99),
                MessagesPerSecond(row.total));
  }
  std::printf("\nWhat pooled gzip saved (median round trip), link: %s:\n",
              info.link.description.c_str());
  for (auto& [size, by_setup] : p50) {
    const double none = by_setup["none"];
    const double stock = by_setup["stock"];
    for (const Setup& setup : info.setups) {
      if (setup.compression != Compression::kPooled) continue;
      const double pooled_us = by_setup[SetupName(setup)];
      if (none <= 0 || stock <= 0 || pooled_us <= 0) continue;
      const double vs_none = pooled_us / none;
      std::printf(
          "  %-7s %s: %.2fx faster than stock gzip (%.0f -> %.0f us per "
          "round trip); %.2fx the time of no compression (%.0f -> %.0f "
          "us), %s\n",
          payloads::SizeLabel(size).c_str(), DisplayName(setup).c_str(),
          stock / pooled_us, stock, pooled_us, vs_none, none, pooled_us,
          vs_none < 1
              ? absl::StrFormat("%.0f%% saved", 100 * (1 - vs_none)).c_str()
              : "sending plain wins here");
    }
  }
  std::fflush(stdout);
}

}  // namespace pooled_gzip::bench
