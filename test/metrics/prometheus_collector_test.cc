// pooled_gzip_codec_seconds_total as the collector reports it: for every
// series, the TrafficStats row of the same labels' codec_nanoseconds in
// seconds. Links the shared library and the component only, as an
// application does, so that the collector reads the counters the messages
// below moved.

#include <grpc/compression.h>
#include <grpcpp/support/byte_buffer.h>
#include <gtest/gtest.h>
#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"
#include "pooled_gzip/prometheus.h"
#include "pooled_gzip/raw_mode.h"

namespace pooled_gzip {
namespace {

using Labels = std::map<std::string, std::string>;

Labels LabelsOf(const prometheus::ClientMetric& metric) {
  Labels labels;
  for (const auto& label : metric.label) labels[label.name] = label.value;
  return labels;
}

std::string Words(size_t size) {
  std::string text;
  for (int k = 0; text.size() < size; ++k) {
    text.append(k % 3 == 0 ? "alpha " : k % 3 == 1 ? "bravo " : "charlie\n");
  }
  return text;
}

TEST(PrometheusCollector, CodecSecondsAreTheTrafficStatsNanoseconds) {
  // Both directions of both formats take codec time.
  const std::string text = Words(1 << 20);
  for (grpc_compression_algorithm algorithm :
       {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE}) {
    grpc::ByteBuffer buffer;
    ASSERT_TRUE(EncodeBytes(text, algorithm, &buffer).ok());
    std::string decoded;
    ASSERT_TRUE(DecodeToString(buffer, &decoded, text.size()).ok());
    ASSERT_EQ(decoded, text);
  }

  const auto collectable = CreateMetricsCollectable();
  const std::vector<prometheus::MetricFamily> families = collectable->Collect();
  const std::vector<TrafficStats> rows = GetTrafficStats();
  std::map<Labels, uint64_t> nanoseconds;
  for (const TrafficStats& row : rows) {
    nanoseconds[{{"direction", row.compressing ? "compress" : "decompress"},
                 {"algorithm", row.algorithm},
                 {"backend", row.backend}}] = row.codec_nanoseconds;
  }
  int timed_rows = 0;
  size_t rows_reported = 0;
  for (const prometheus::MetricFamily& family : families) {
    if (family.name != "pooled_gzip_codec_seconds_total") continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      const Labels labels = LabelsOf(metric);
      const auto row = nanoseconds.find(labels);
      // The backends in use are reported at zero before their traffic.
      const uint64_t want = row == nanoseconds.end() ? 0 : row->second;
      rows_reported += row != nanoseconds.end();
      timed_rows += want > 0;
      EXPECT_DOUBLE_EQ(metric.counter.value, static_cast<double>(want) / 1e9)
          << labels.at("direction") << " " << labels.at("algorithm") << " "
          << labels.at("backend") << ": " << want << " ns";
    }
  }
  EXPECT_EQ(rows_reported, rows.size());
  // The four messages above each took time in a row of their own:
  // compress and decompress, gzip and deflate.
  EXPECT_GE(timed_rows, 4);
}

// The series reported before any traffic name the decoders the library
// uses: Options::decoder, or while it is unset the library's own default.
TEST(PrometheusCollector, DecodingSeriesNameTheDecodersInUse) {
  const Options original = GetOptions();
  for (const std::optional<Backend>& decoder :
       {std::optional<Backend>(), std::optional<Backend>(Backend::kZlib)}) {
    Options options = original;
    options.decoder = decoder;
    ASSERT_TRUE(Configure(options).ok());
    std::map<std::string, std::vector<std::string>> backends;  // by algorithm
    for (const prometheus::MetricFamily& family :
         CreateMetricsCollectable()->Collect()) {
      if (family.name != "pooled_gzip_messages_total") continue;
      for (const prometheus::ClientMetric& metric : family.metric) {
        const Labels labels = LabelsOf(metric);
        if (labels.at("direction") != "decompress") continue;
        backends[labels.at("algorithm")].push_back(labels.at("backend"));
      }
    }
    for (const char* algorithm : {"gzip", "deflate"}) {
      const std::string in_use(
          BackendName(decoder.value_or(DefaultDecoder(algorithm))));
      EXPECT_NE(std::find(backends[algorithm].begin(),
                          backends[algorithm].end(), in_use),
                backends[algorithm].end())
          << algorithm << ": " << in_use;
    }
  }
  ASSERT_TRUE(Configure(original).ok());
}

}  // namespace
}  // namespace pooled_gzip
