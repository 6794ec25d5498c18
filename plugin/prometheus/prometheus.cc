#include "pooled_gzip/prometheus.h"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily Family(std::string name, std::string help, MetricType type) {
  MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

void Add(MetricFamily& family, std::vector<ClientMetric::Label> labels,
         double value) {
  ClientMetric& metric = family.metric.emplace_back();
  metric.label = std::move(labels);
  if (family.type == MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
}

void Add(MetricFamily& family, std::vector<ClientMetric::Label> labels,
         uint64_t value) {
  Add(family, std::move(labels), static_cast<double>(value));
}

// User plus system time of the whole process, so that the codec's share
// of it can be read off one scrape (docs/reference.md, "Metrics").
double ProcessCpuSeconds() {
  rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// gRPC's two algorithms as TrafficStats names them, and the decoder each
// has while Options::decoder is unset.
struct Algorithm {
  const char* name;
  Backend default_decoder;
};
constexpr Algorithm kAlgorithms[] = {{"gzip", kDefaultGzipDecoder},
                                     {"deflate", kDefaultDeflateDecoder}};

// The backend each direction and algorithm uses under `options`: the
// writer, or the decoder of that format.
std::string BackendInUse(const Options& options, bool compressing,
                         const Algorithm& algorithm) {
  const Backend decoder = options.decoder.value_or(algorithm.default_decoder);
  return std::string(BackendName(compressing ? options.backend : decoder));
}

// GetTrafficStats() lists only the rows that saw traffic. The rows of the
// backends in use are added at zero, so that rate() has a start from the
// first scrape rather than from the first message.
std::vector<TrafficStats> TrafficRows() {
  std::vector<TrafficStats> rows = GetTrafficStats();
  const Options options = GetOptions();
  for (bool compressing : {true, false}) {
    for (const Algorithm& algorithm : kAlgorithms) {
      const std::string backend = BackendInUse(options, compressing, algorithm);
      const bool present =
          std::any_of(rows.begin(), rows.end(), [&](const TrafficStats& row) {
            return row.compressing == compressing &&
                   row.algorithm == algorithm.name && row.backend == backend;
          });
      if (present) continue;
      TrafficStats& row = rows.emplace_back();
      row.compressing = compressing;
      row.algorithm = algorithm.name;
      row.backend = backend;
    }
  }
  // Compressing first, then by name: a stable order to read scrapes by.
  auto key = [](const TrafficStats& row) {
    return std::make_tuple(!row.compressing, row.algorithm, row.backend);
  };
  std::sort(rows.begin(), rows.end(),
            [&](const TrafficStats& a, const TrafficStats& b) {
              return key(a) < key(b);
            });
  return rows;
}

void CollectTraffic(std::vector<MetricFamily>& families) {
  MetricFamily messages =
      Family("pooled_gzip_messages_total",
             "Messages through the codec: compressed and sent, or inflated.",
             MetricType::Counter);
  MetricFamily input =
      Family("pooled_gzip_input_bytes_total",
             "Bytes the codec was given for the messages counted in "
             "pooled_gzip_messages_total: uncompressed when compressing, "
             "compressed when decompressing.",
             MetricType::Counter);
  MetricFamily output =
      Family("pooled_gzip_output_bytes_total",
             "Bytes the codec produced for the messages counted in "
             "pooled_gzip_messages_total.",
             MetricType::Counter);
  MetricFamily declined =
      Family("pooled_gzip_compress_declined_total",
             "Messages sent uncompressed because compressing did not make them "
             "smaller: normal for small or incompressible messages.",
             MetricType::Counter);
  MetricFamily compress_failures =
      Family("pooled_gzip_compress_failures_total",
             "Messages sent uncompressed because compressing failed: no "
             "compressor could be created.",
             MetricType::Counter);
  MetricFamily failures =
      Family("pooled_gzip_decode_failures_total",
             "Received messages that did not decompress: corrupt or truncated, "
             "or no decoder could be created.",
             MetricType::Counter);
  MetricFamily refusals =
      Family("pooled_gzip_size_limit_refusals_total",
             "Received messages refused for inflating past the size limit.",
             MetricType::Counter);
  MetricFamily seconds =
      Family("pooled_gzip_codec_seconds_total",
             "Time spent inside the codec compressing or decompressing, for "
             "every message whatever its outcome.",
             MetricType::Counter);
  MetricFamily saved =
      Family("pooled_gzip_saved_bytes_total",
             "Wire bytes compression saved: what the messages carry less what "
             "they took on the wire.",
             MetricType::Counter);
  MetricFamily skipped =
      Family("pooled_gzip_compress_skipped_total",
             "Messages sent uncompressed without being compressed: judged "
             "incompressible, or shorter than the minimum size.",
             MetricType::Counter);
  MetricFamily skipped_bytes =
      Family("pooled_gzip_compress_skipped_bytes_total",
             "Bytes of the messages counted in "
             "pooled_gzip_compress_skipped_total.",
             MetricType::Counter);
  for (const TrafficStats& row : TrafficRows()) {
    const std::vector<ClientMetric::Label> labels = {
        {"direction", row.compressing ? "compress" : "decompress"},
        {"algorithm", row.algorithm},
        {"backend", row.backend}};
    Add(messages, labels, row.messages);
    Add(input, labels, row.bytes_in);
    Add(output, labels, row.bytes_out);
    Add(seconds, labels, static_cast<double>(row.codec_nanoseconds) / 1e9);
    Add(saved, labels, row.bytes_saved);
    // The direction is in the name of these: drop the label.
    const std::vector<ClientMetric::Label> format_labels(labels.begin() + 1,
                                                         labels.end());
    if (row.compressing) {
      Add(declined, format_labels, row.declined);
      Add(compress_failures, format_labels, row.failed);
      Add(skipped, format_labels, row.skipped);
      Add(skipped_bytes, format_labels, row.skipped_bytes);
    } else {
      Add(failures, format_labels, row.failed);
      Add(refusals, format_labels, row.refused);
    }
  }
  for (MetricFamily* family :
       {&messages, &input, &output, &seconds, &saved, &declined,
        &compress_failures, &skipped, &skipped_bytes, &failures, &refusals}) {
    families.push_back(std::move(*family));
  }
}

void CollectPools(std::vector<MetricFamily>& families) {
  struct Series {
    const char* name;
    const char* help;
    MetricType type;
    uint64_t PoolCounters::*member;
  };
  static constexpr Series kSeries[] = {
      {"pooled_gzip_contexts_created_total",
       "Contexts created because the pool had none idle: pool misses.",
       MetricType::Counter, &PoolCounters::created},
      {"pooled_gzip_contexts_reused_total",
       "Checkouts served by an idle pooled context: pool hits.",
       MetricType::Counter, &PoolCounters::reused},
      {"pooled_gzip_contexts_destroyed_total",
       "Contexts freed, for any reason.", MetricType::Counter,
       &PoolCounters::destroyed},
      {"pooled_gzip_contexts_discarded_total",
       "Contexts freed because they saw an error.", MetricType::Counter,
       &PoolCounters::discarded},
      {"pooled_gzip_contexts_rejected_by_caps_total",
       "Contexts freed on return because a pool cap was full.",
       MetricType::Counter, &PoolCounters::rejected_by_caps},
      {"pooled_gzip_contexts_evicted_total",
       "Idle contexts left by exited threads, freed to make room for "
       "contexts of another kind, or on request.",
       MetricType::Counter, &PoolCounters::evicted},
      {"pooled_gzip_contexts_live", "Contexts in use or idle.",
       MetricType::Gauge, &PoolCounters::live},
      {"pooled_gzip_contexts_pooled",
       "Idle contexts kept for reuse, in a thread's list or the reserve.",
       MetricType::Gauge, &PoolCounters::pooled},
      {"pooled_gzip_contexts_in_reserve",
       "Idle contexts left by threads that exited (part of "
       "pooled_gzip_contexts_pooled).",
       MetricType::Gauge, &PoolCounters::in_reserve},
      {"pooled_gzip_pooled_bytes", "Heap held by the idle contexts.",
       MetricType::Gauge, &PoolCounters::pooled_bytes},
  };
  const PoolStats stats = GetPoolStats();
  for (const Series& series : kSeries) {
    MetricFamily family = Family(series.name, series.help, series.type);
    Add(family, {{"pool", "writer"}}, stats.writers.*series.member);
    Add(family, {{"pool", "reader"}}, stats.readers.*series.member);
    families.push_back(std::move(family));
  }
  MetricFamily limit =
      Family("pooled_gzip_pooled_limit_bytes",
             "Cap on the heap held by idle contexts, both pools together.",
             MetricType::Gauge);
  Add(limit, {}, GetOptions().max_pooled_bytes);
  families.push_back(std::move(limit));
}

// The state the log line reports (GetCoreCodecState, CoreCodecStatus).
void CollectCoreCodec(std::vector<MetricFamily>& families) {
  MetricFamily active =
      Family("pooled_gzip_core_codec_active",
             "1 if gRPC core compresses and decompresses through the pooled "
             "codec, 0 if the process runs as stock gRPC in either direction "
             "(its log line says why).",
             MetricType::Gauge);
  Add(active, {}, CoreCodecStatus().ok() ? 1.0 : 0.0);
  families.push_back(std::move(active));
  MetricFamily served =
      Family("pooled_gzip_core_codec_served",
             "1 if gRPC core's messages in this direction are served by the "
             "pooled codec, 0 if gRPC's own codec makes them.",
             MetricType::Gauge);
  const CoreCodecState state = GetCoreCodecState();
  Add(served, {{"direction", "compress"}},
      state.compress == ServingState::kServed ? 1.0 : 0.0);
  Add(served, {{"direction", "decompress"}},
      state.decompress == ServingState::kServed ? 1.0 : 0.0);
  families.push_back(std::move(served));
}

class Metrics final : public prometheus::Collectable {
 public:
  std::vector<MetricFamily> Collect() const override {
    std::vector<MetricFamily> families;
    CollectTraffic(families);
    CollectPools(families);
    CollectCoreCodec(families);
    MetricFamily cpu =
        Family("pooled_gzip_process_cpu_seconds_total",
               "User and system CPU time of the whole process, to weigh "
               "pooled_gzip_codec_seconds_total against.",
               MetricType::Counter);
    Add(cpu, {}, ProcessCpuSeconds());
    families.push_back(std::move(cpu));
    return families;
  }
};

}  // namespace

std::shared_ptr<prometheus::Collectable> CreateMetricsCollectable() {
  return std::make_shared<Metrics>();
}

}  // namespace pooled_gzip
