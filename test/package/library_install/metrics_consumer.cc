// The metrics component as the README shows it: pooled gzip echoes, then
// the plugin's Collectable registered with a prometheus::Exposer (which
// this program links from prometheus-cpp::pull itself). Exits 0 when the
// exposer listens and the collected families count the compressed
// messages and a reused writer.

#include <pooled_gzip/prometheus.h>
#include <prometheus/client_metric.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "pooled_echo.h"

namespace {

// The sum of a family's counters whose labels include `label`="value".
double CounterSum(const std::vector<prometheus::MetricFamily>& families,
                  const std::string& name, const std::string& label,
                  const std::string& value) {
  double sum = 0;
  for (const prometheus::MetricFamily& family : families) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      for (const prometheus::ClientMetric::Label& pair : metric.label) {
        if (pair.name == label && pair.value == value) {
          sum += metric.counter.value;
        }
      }
    }
  }
  return sum;
}

}  // namespace

int main() {
  consumer::PooledEcho echo;
  if (!echo.started()) {
    std::cerr << "metrics_consumer: no server\n";
    return 1;
  }
  constexpr int kCalls = 10;
  for (int i = 0; i < kCalls; ++i) {
    grpc::ByteBuffer response;
    if (!consumer::CallEcho(echo.stub(), consumer::CompressiblePayload(),
                            &response)
             .ok()) {
      std::cerr << "metrics_consumer: echo " << i << " failed\n";
      return 1;
    }
  }
  echo.Shutdown();

  prometheus::Exposer exposer("127.0.0.1:0");
  std::shared_ptr<prometheus::Collectable> metrics =
      pooled_gzip::CreateMetricsCollectable();
  exposer.RegisterCollectable(metrics);
  const std::vector<prometheus::MetricFamily> families = metrics->Collect();
  const double compressed = CounterSum(families, "pooled_gzip_messages_total",
                                       "direction", "compress");
  const double reused = CounterSum(
      families, "pooled_gzip_contexts_reused_total", "pool", "writer");
  std::cout << "metrics_consumer: exposer on port "
            << (exposer.GetListeningPorts().empty()
                    ? -1
                    : exposer.GetListeningPorts().front())
            << "; " << compressed << " messages compressed, " << reused
            << " writers reused\n";
  // Requests and responses: both compressed in this process.
  const bool ok = !exposer.GetListeningPorts().empty() &&
                  compressed >= 2 * kCalls && reused > 0;
  if (!ok) std::cerr << "metrics_consumer: the metrics miss the echoes\n";
  return ok ? 0 : 1;
}
