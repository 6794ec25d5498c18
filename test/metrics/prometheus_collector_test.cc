// The collector's series against the TrafficStats fields they report:
// pooled_gzip_codec_seconds_total per row, the declined and failure series
// summed. Links the shared library and the component only, as an
// application does, so that the collector reads the counters the messages
// below moved.

#include <grpc/compression.h>
#include <grpcpp/support/byte_buffer.h>
#include <gtest/gtest.h>
#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "generic_echo.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"
#include "pooled_gzip/pooled_gzip.h"
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

// The sum of a series over its labels, as the collector reports it.
double SeriesTotal(const std::string& name) {
  double total = 0;
  for (const prometheus::MetricFamily& family :
       CreateMetricsCollectable()->Collect()) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      total += metric.counter.value;
    }
  }
  return total;
}

// TrafficStats' `field` summed over the rows of one direction.
uint64_t TrafficTotal(bool compressing, uint64_t TrafficStats::*field) {
  uint64_t total = 0;
  for (const TrafficStats& row : GetTrafficStats()) {
    if (row.compressing == compressing) total += row.*field;
  }
  return total;
}

// A message too small to shrink is declined, which is no failure; a
// message that does not inflate is one. Each has a series of its own.
TEST(PrometheusCollector, DeclinedAndFailedMessagesHaveTheirOwnSeries) {
  consumer::EchoService service;
  int port = 0;
  std::unique_ptr<grpc::Server> server = consumer::StartGzipServer(
      &service, &port,
      [](grpc::ServerBuilder& builder) { EnableOnServer(builder); });
  ASSERT_NE(server, nullptr);
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  grpc::GenericStub stub(CreateChannel("127.0.0.1:" + std::to_string(port),
                                       grpc::InsecureChannelCredentials(),
                                       args));
  // Core hands every message to the codec there, 1-byte ones included.
  ASSERT_TRUE(CoreCodecActive()) << "this case is of the core codec";
  const uint64_t declined_before = TrafficTotal(true, &TrafficStats::declined);
  const uint64_t compress_failed_before =
      TrafficTotal(true, &TrafficStats::failed);
  const uint64_t decode_failed_before =
      TrafficTotal(false, &TrafficStats::failed);

  // One byte: no gzip stream is that short. Sent plain both ways.
  grpc::ByteBuffer response;
  ASSERT_TRUE(consumer::CallEcho(&stub, "x", &response).ok());
  EXPECT_EQ(consumer::Bytes(response), "x");
  // A zlib stream sent on a gzip call, as raw mode sends a buffer marked
  // with another algorithm than the call's: the server inflates it as gzip,
  // and fails.
  grpc::ByteBuffer deflated;
  ASSERT_TRUE(EncodeBytes(Words(4096), GRPC_COMPRESS_DEFLATE, &deflated).ok());
  {
    grpc::ClientContext context;
    context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
    grpc::ByteBuffer reply;
    std::mutex mutex;
    std::condition_variable done_cv;
    std::optional<grpc::Status> status;
    stub.UnaryCall(&context, "/consumer.Echo/Echo", grpc::StubOptions(),
                   &deflated, &reply, [&](grpc::Status s) {
                     std::lock_guard<std::mutex> lock(mutex);
                     status = std::move(s);
                     done_cv.notify_one();
                   });
    std::unique_lock<std::mutex> lock(mutex);
    done_cv.wait(lock, [&] { return status.has_value(); });
    EXPECT_FALSE(status->ok());
  }

  const uint64_t declined = TrafficTotal(true, &TrafficStats::declined);
  const uint64_t compress_failed = TrafficTotal(true, &TrafficStats::failed);
  const uint64_t decode_failed = TrafficTotal(false, &TrafficStats::failed);
  EXPECT_EQ(declined - declined_before, 2u);  // the request and its echo
  EXPECT_EQ(compress_failed, compress_failed_before);
  EXPECT_EQ(decode_failed - decode_failed_before, 1u);
  EXPECT_DOUBLE_EQ(SeriesTotal("pooled_gzip_compress_declined_total"),
                   static_cast<double>(declined));
  EXPECT_DOUBLE_EQ(SeriesTotal("pooled_gzip_compress_failures_total"),
                   static_cast<double>(compress_failed));
  EXPECT_DOUBLE_EQ(SeriesTotal("pooled_gzip_decode_failures_total"),
                   static_cast<double>(decode_failed));
  server->Shutdown();
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
    for (const auto& [algorithm, default_decoder] :
         {std::pair<std::string, Backend>("gzip", kDefaultGzipDecoder),
          std::pair<std::string, Backend>("deflate", kDefaultDeflateDecoder)}) {
      const std::string in_use(BackendName(decoder.value_or(default_decoder)));
      EXPECT_NE(std::find(backends[algorithm].begin(),
                          backends[algorithm].end(), in_use),
                backends[algorithm].end())
          << algorithm << ": " << in_use;
    }
  }
  ASSERT_TRUE(Configure(original).ok());
}

// The core codec's gauges: "active", and each direction served.
std::map<std::string, double> CoreCodecGauges() {
  std::map<std::string, double> gauges;
  for (const prometheus::MetricFamily& family :
       CreateMetricsCollectable()->Collect()) {
    for (const prometheus::ClientMetric& metric : family.metric) {
      if (family.name == "pooled_gzip_core_codec_active") {
        gauges["active"] = metric.gauge.value;
      } else if (family.name == "pooled_gzip_core_codec_served") {
        gauges[LabelsOf(metric).at("direction")] = metric.gauge.value;
      }
    }
  }
  return gauges;
}

// The series read the state the log line reports: nothing served before the
// first install, each direction as GetCoreCodecState() says after it.
TEST(PrometheusCollector, CoreCodecSeriesFollowItsState) {
  using Gauges = std::map<std::string, double>;
  EXPECT_EQ(CoreCodecGauges(),
            (Gauges{{"active", 0}, {"compress", 0}, {"decompress", 0}}));
  ASSERT_TRUE(InstallCoreCodec()) << CoreCodecStatus();
  ASSERT_EQ(GetCoreCodecState().compress, ServingState::kServed);
  ASSERT_EQ(GetCoreCodecState().decompress, ServingState::kServed);
  EXPECT_EQ(CoreCodecGauges(),
            (Gauges{{"active", 1}, {"compress", 1}, {"decompress", 1}}));
}

}  // namespace
}  // namespace pooled_gzip
