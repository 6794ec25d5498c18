#include "e2e_results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "payloads.h"
#include "pooled_gzip/codec.h"
#include "process_stats.h"

namespace pooled_gzip::bench {
namespace {

double PerMessage(double value, const RunResult& run) {
  return run.messages == 0 ? 0 : value / static_cast<double>(run.messages);
}

const Row* FindMode(const std::vector<Row>& rows, Mode mode) {
  for (const Row& row : rows) {
    if (row.mode == mode) return &row;
  }
  return nullptr;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Finite numbers only: JSON has no NaN or infinity.
std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  return absl::StrFormat("%.6g", value);
}

std::string RowJson(const Row& row) {
  const RunResult& t = row.total;
  const AllocCounts& a = t.allocs;
  std::vector<std::string> fields = {
      absl::StrCat("\"rpc\": ", JsonString(RpcName(row.cell.rpc))),
      absl::StrCat("\"threads\": ", row.cell.threads),
      absl::StrCat("\"size\": ", row.cell.size),
      absl::StrCat("\"mode\": ", JsonString(ModeName(row.mode))),
      absl::StrCat("\"messages\": ", t.messages),
      absl::StrCat("\"errors\": ", t.errors),
      absl::StrCat("\"first_error\": ", JsonString(t.first_error)),
      absl::StrCat("\"p50_us\": ", JsonNumber(Quantile(t.latencies_us, 0.5))),
      absl::StrCat("\"p99_us\": ", JsonNumber(Quantile(t.latencies_us, 0.99))),
      absl::StrCat("\"rep_p50_us\": [",
                   absl::StrJoin(row.rep_p50_us, ", ",
                                 [](std::string* out, double v) {
                                   out->append(JsonNumber(v));
                                 }),
                   "]"),
      absl::StrCat(
          "\"msgs_per_s\": ",
          JsonNumber(t.wall_seconds > 0
                         ? static_cast<double>(t.messages) / t.wall_seconds
                         : 0)),
      absl::StrCat("\"cpu_us_per_msg\": ",
                   JsonNumber(PerMessage(t.usage.cpu_seconds * 1e6, t))),
      absl::StrCat("\"minor_faults_per_msg\": ",
                   JsonNumber(PerMessage(t.usage.minor_faults, t))),
      absl::StrCat("\"peak_rss_bytes\": ", row.peak_rss_bytes),
      absl::StrCat("\"allocs_per_msg\": ", JsonNumber(PerMessage(a.allocs, t))),
      absl::StrCat("\"heap_bytes_per_msg\": ",
                   JsonNumber(PerMessage(a.bytes, t))),
      absl::StrCat("\"deflate_state_allocs_per_msg\": ",
                   JsonNumber(PerMessage(a.deflate_state_allocs, t))),
      absl::StrCat("\"deflate_state_bytes_per_msg\": ",
                   JsonNumber(PerMessage(a.deflate_state_bytes, t))),
      absl::StrCat("\"inflate_state_allocs_per_msg\": ",
                   JsonNumber(PerMessage(a.inflate_state_allocs, t))),
      absl::StrCat("\"inflate_state_bytes_per_msg\": ",
                   JsonNumber(PerMessage(a.inflate_state_bytes, t))),
      absl::StrCat("\"deflate_inits_per_msg\": ",
                   JsonNumber(PerMessage(a.deflate_inits, t))),
      absl::StrCat("\"inflate_inits_per_msg\": ",
                   JsonNumber(PerMessage(a.inflate_inits, t))),
      absl::StrCat("\"pool_created\": ", t.pool.created),
      absl::StrCat("\"pool_reused\": ", t.pool.reused),
  };
  return absl::StrCat("    {", absl::StrJoin(fields, ", "), "}");
}

std::string PoolJson(const PoolStats& s) {
  return absl::StrFormat(
      "{\"created\": %d, \"reused\": %d, \"destroyed\": %d, \"discarded\": "
      "%d, \"rejected_by_caps\": %d, \"live\": %d, \"pooled\": %d, "
      "\"pooled_bytes\": %d, \"text\": %s}",
      s.created, s.reused, s.destroyed, s.discarded, s.rejected_by_caps, s.live,
      s.pooled, s.pooled_bytes, JsonString(ToString(s)));
}

}  // namespace

double Quantile(Latencies samples, double q) {
  if (samples.empty()) return 0;
  // Nearest rank: the smallest sample with at least q of them at or below.
  size_t rank =
      static_cast<size_t>(std::ceil(q * static_cast<double>(samples.size())));
  rank = std::clamp<size_t>(rank, 1, samples.size());
  std::nth_element(samples.begin(), samples.begin() + (rank - 1),
                   samples.end());
  return samples[rank - 1];
}

void PrintCell(const std::vector<Row>& rows) {
  if (rows.empty()) return;
  const Cell& cell = rows.front().cell;
  std::printf("%s, %d thread%s, %s\n", RpcName(cell.rpc), cell.threads,
              cell.threads == 1 ? "" : "s", SizeLabel(cell.size).c_str());
  for (const Row& row : rows) {
    const RunResult& t = row.total;
    std::printf(
        "  %-6s p50 %9.1f us  p99 %9.1f us  %8.0f msg/s  cpu %8.1f us/msg  "
        "zlib state %7.1f KiB/msg (%4.1f allocs)  faults %6.1f/msg%s\n",
        ModeName(row.mode), Quantile(t.latencies_us, 0.5),
        Quantile(t.latencies_us, 0.99),
        t.wall_seconds > 0 ? static_cast<double>(t.messages) / t.wall_seconds
                           : 0,
        PerMessage(t.usage.cpu_seconds * 1e6, t),
        PerMessage(t.allocs.zlib_state_bytes(), t) / 1024,
        PerMessage(t.allocs.zlib_state_allocs(), t),
        PerMessage(t.usage.minor_faults, t),
        t.errors > 0 ? ("  ERRORS: " + t.first_error).c_str() : "");
  }
  const Row* none = FindMode(rows, Mode::kNone);
  const Row* stock = FindMode(rows, Mode::kStock);
  const Row* pooled = FindMode(rows, Mode::kPooled);
  if (none != nullptr && stock != nullptr && pooled != nullptr) {
    const double p50_none = Quantile(none->total.latencies_us, 0.5);
    const double p50_stock = Quantile(stock->total.latencies_us, 0.5);
    const double p50_pooled = Quantile(pooled->total.latencies_us, 0.5);
    if (p50_none > 0 && p50_pooled > 0) {
      std::printf("  p50 ratios: stock/pooled %.2fx, pooled/none %.2fx\n",
                  p50_stock / p50_pooled, p50_pooled / p50_none);
    }
  }
  std::fflush(stdout);
}

std::string ToJson(const RunInfo& info, const std::vector<Row>& rows) {
  std::vector<std::string> row_json;
  row_json.reserve(rows.size());
  for (const Row& row : rows) row_json.push_back(RowJson(row));
  return absl::StrCat(
      "{\n", "  \"label\": ", JsonString(info.label), ",\n",
      "  \"payload\": ", JsonString(info.payload), ",\n",
      "  \"heap\": ", JsonString(info.heap), ",\n", "  \"reps\": ", info.reps,
      ",\n", "  \"budget_ms\": ", info.budget_ms, ",\n",
      "  \"process_peak_rss_bytes\": ", PeakRssBytes(), ",\n",
      "  \"pool_stats\": ", PoolJson(GetPoolStats()), ",\n", "  \"rows\": [\n",
      absl::StrJoin(row_json, ",\n"), "\n  ]\n}\n");
}

}  // namespace pooled_gzip::bench
