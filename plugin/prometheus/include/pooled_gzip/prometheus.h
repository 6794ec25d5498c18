// The plugin's figures as Prometheus metrics (component
// pooled_gzip::prometheus, on prometheus-cpp).
//
//   prometheus::Exposer exposer("127.0.0.1:9464");
//   exposer.RegisterCollectable(registry);  // your own metrics
//   auto pooled_gzip_metrics = pooled_gzip::CreateMetricsCollectable();
//   exposer.RegisterCollectable(pooled_gzip_metrics);
//
// prometheus-cpp's Registry takes only the counters and gauges it builds
// itself, so the plugin's metrics come as a Collectable of their own, which
// you register next to your registry wherever you expose or push it.

#ifndef POOLED_GZIP_PROMETHEUS_H_
#define POOLED_GZIP_PROMETHEUS_H_

#include <prometheus/collectable.h>

#include <memory>

#include "pooled_gzip/export.h"

namespace pooled_gzip {

// The pooled_gzip_* metric families, read from GetTrafficStats(),
// GetPoolStats(), GetOptions(), GetCoreCodecState() and CoreCodecStatus()
// each time they are collected: no thread, no state of its own, safe to
// create and collect from any thread; never fails or returns null.
// Exposer::RegisterCollectable (and Gateway's) hold it weakly, so keep the
// pointer alive as long as it is registered; register it once per exposer,
// or every family appears twice.
POOLED_GZIP_EXPORT std::shared_ptr<prometheus::Collectable>
CreateMetricsCollectable();

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_PROMETHEUS_H_
