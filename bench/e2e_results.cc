#include "e2e_results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "payloads.h"

namespace pooled_gzip::bench {
namespace {

double PerMessage(double value, const Row& row) {
  return row.total.messages == 0
             ? 0
             : value / static_cast<double>(row.total.messages);
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

double PerCodecMessageUs(uint64_t nanoseconds, uint64_t messages) {
  return messages > 0 ? static_cast<double>(nanoseconds) / 1e3 /
                            static_cast<double>(messages)
                      : 0;
}

std::string RowJson(const Row& row) {
  const RunResult& t = row.total;
  const Counters& c = t.spent;
  const Counters& s = row.server;
  const AllocCounts both = c.allocs + s.allocs;
  auto per_msg = [&](double value) {
    return JsonNumber(PerMessage(value, row));
  };
  std::vector<std::string> fields = {
      absl::StrCat("\"rpc\": ", JsonString(RpcName(row.cell.rpc))),
      absl::StrCat("\"threads\": ", row.cell.threads),
      absl::StrCat("\"kind\": ", JsonString(payloads::KindName(row.cell.kind))),
      absl::StrCat("\"size\": ", row.cell.size),
      absl::StrCat("\"setup\": ", JsonString(SetupName(row.setup))),
      absl::StrCat("\"compression\": ",
                   JsonString(CompressionName(row.setup.compression))),
      absl::StrCat("\"is_default\": ", row.setup.is_default ? "true" : "false"),
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
      absl::StrCat("\"rep_msgs_per_s\": [",
                   absl::StrJoin(row.rep_msgs_per_s, ", ",
                                 [](std::string* out, double v) {
                                   out->append(JsonNumber(v));
                                 }),
                   "]"),
      absl::StrCat(
          "\"msgs_per_s\": ",
          JsonNumber(t.wall_seconds > 0
                         ? static_cast<double>(t.messages) / t.wall_seconds
                         : 0)),
      absl::StrCat("\"request_bytes\": ", row.request_bytes),
      absl::StrCat("\"wire_bytes\": ", row.wire_bytes),
      absl::StrCat("\"cpu_us_per_msg\": ",
                   per_msg((c.usage.cpu_seconds + s.usage.cpu_seconds) * 1e6)),
      absl::StrCat("\"client_cpu_us_per_msg\": ",
                   per_msg(c.usage.cpu_seconds * 1e6)),
      absl::StrCat("\"server_cpu_us_per_msg\": ",
                   per_msg(s.usage.cpu_seconds * 1e6)),
      absl::StrCat("\"client_faults_per_msg\": ",
                   per_msg(c.usage.minor_faults)),
      absl::StrCat("\"server_faults_per_msg\": ",
                   per_msg(s.usage.minor_faults)),
      absl::StrCat("\"allocs_per_msg\": ", per_msg(both.allocs)),
      absl::StrCat("\"heap_bytes_per_msg\": ", per_msg(both.bytes)),
      absl::StrCat("\"client_heap_bytes_per_msg\": ", per_msg(c.allocs.bytes)),
      absl::StrCat("\"server_heap_bytes_per_msg\": ", per_msg(s.allocs.bytes)),
      absl::StrCat("\"deflate_state_allocs_per_msg\": ",
                   per_msg(both.deflate_state_allocs)),
      absl::StrCat("\"deflate_state_bytes_per_msg\": ",
                   per_msg(both.deflate_state_bytes)),
      absl::StrCat("\"inflate_state_allocs_per_msg\": ",
                   per_msg(both.inflate_state_allocs)),
      absl::StrCat("\"inflate_state_bytes_per_msg\": ",
                   per_msg(both.inflate_state_bytes)),
      absl::StrCat("\"deflate_inits_per_msg\": ", per_msg(both.deflate_inits)),
      absl::StrCat("\"inflate_inits_per_msg\": ", per_msg(both.inflate_inits)),
      absl::StrCat("\"pool_created\": ", c.pool_created + s.pool_created),
      absl::StrCat("\"pool_reused\": ", c.pool_reused + s.pool_reused),
      // Time inside the codec per message it handled, from the library's
      // own counters: what bench/report.py holds codec_bench's figure to.
      absl::StrCat("\"server_compress_us\": ",
                   JsonNumber(PerCodecMessageUs(s.compress_ns, s.compressed))),
      absl::StrCat(
          "\"server_decompress_us\": ",
          JsonNumber(PerCodecMessageUs(s.decompress_ns, s.decompressed))),
      absl::StrCat("\"client_compress_us\": ",
                   JsonNumber(PerCodecMessageUs(c.compress_ns, c.compressed))),
      absl::StrCat(
          "\"client_decompress_us\": ",
          JsonNumber(PerCodecMessageUs(c.decompress_ns, c.decompressed))),
      absl::StrCat("\"client_rss_bytes\": ", c.rss_bytes),
      absl::StrCat("\"server_rss_bytes\": ", s.rss_bytes),
  };
  return absl::StrCat("    {", absl::StrJoin(fields, ", "), "}");
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
  std::printf("%s, %d thread%s, %s, %s\n", RpcName(cell.rpc), cell.threads,
              cell.threads == 1 ? "" : "s", payloads::KindName(cell.kind),
              payloads::SizeLabel(cell.size).c_str());
  double stock_p50 = 0;
  for (const Row& row : rows) {
    if (row.setup.compression == Compression::kStock) {
      stock_p50 = Quantile(row.total.latencies_us, 0.5);
    }
  }
  for (const Row& row : rows) {
    const RunResult& t = row.total;
    const double p50 = Quantile(t.latencies_us, 0.5);
    const std::string vs_stock =
        stock_p50 > 0 && p50 > 0 ? absl::StrFormat("%6.2fx", stock_p50 / p50)
                                 : std::string("     -");
    std::printf(
        "  %-18s p50 %9.1f us  p99 %9.1f us  %8.0f msg/s  stock/this %s  "
        "wire %8zu B  cpu client %8.1f server %8.1f us/msg%s\n",
        (SetupName(row.setup) + (row.setup.is_default ? "*" : "")).c_str(), p50,
        Quantile(t.latencies_us, 0.99),
        t.wall_seconds > 0 ? static_cast<double>(t.messages) / t.wall_seconds
                           : 0,
        vs_stock.c_str(), row.wire_bytes,
        PerMessage(t.spent.usage.cpu_seconds * 1e6, row),
        PerMessage(row.server.usage.cpu_seconds * 1e6, row),
        t.errors > 0 ? ("  ERRORS: " + t.first_error).c_str() : "");
  }
  std::fflush(stdout);
}

std::string ToJson(const RunInfo& info, const std::vector<Row>& rows) {
  std::vector<std::string> row_json;
  row_json.reserve(rows.size());
  for (const Row& row : rows) row_json.push_back(RowJson(row));
  std::vector<std::string> setups;
  for (const Setup& setup : info.setups) {
    setups.push_back(JsonString(SetupName(setup)));
  }
  return absl::StrCat(
      "{\n", "  \"label\": ", JsonString(info.label), ",\n",
      "  \"heap\": ", JsonString(info.heap), ",\n", "  \"reps\": ", info.reps,
      ",\n", "  \"budget_ms\": ", info.budget_ms, ",\n",
      "  \"load_budget_ms\": ", info.load_budget_ms, ",\n", "  \"setups\": [",
      absl::StrJoin(setups, ", "), "],\n",
      "  \"default_setup\": ", JsonString(info.default_setup), ",\n",
      "  \"gzip_decoder\": ", JsonString(info.gzip_decoder), ",\n",
      "  \"pin\": ", JsonString(info.pin), ",\n",
      "  \"fresh_pairs\": ", info.fresh_pairs ? "true" : "false", ",\n",
      "  \"link\": ", JsonString(info.link_name), ",\n",
      "  \"link_shaped\": ", info.link.shaped ? "true" : "false", ",\n",
      "  \"link_rate_bits_per_s\": ", info.link.rate_bits_per_s, ",\n",
      "  \"link_delay_ms\": ", info.link.delay_ms, ",\n",
      "  \"link_description\": ", JsonString(info.link.description), ",\n",
      "  \"rows\": [\n", absl::StrJoin(row_json, ",\n"), "\n  ]\n}\n");
}

}  // namespace pooled_gzip::bench
