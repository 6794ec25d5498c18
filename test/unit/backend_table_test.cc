// The backend table (codec/backend_table.h) against each of its users: a
// backend added to the table, or to Backend, without the rest fails here.

#include "codec/backend_table.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "codec/backend.h"
#include "codec/format.h"
#include "codec/traffic.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"

namespace pooled_gzip::internal {
namespace {

constexpr Format kFormats[] = {Format::kGzip, Format::kDeflate};

// The rows follow Backend's values, one each, so that a row's index is its
// traffic row and an enumerator without a row is unknown.
TEST(BackendTable, EveryValueOfBackendHasItsRowInOrder) {
  for (size_t i = 0; i < kBackendCount; ++i) {
    EXPECT_EQ(static_cast<size_t>(kBackendRows[i].backend), i);
    EXPECT_EQ(RowIndexOf(static_cast<Backend>(i)), i);
    EXPECT_EQ(kAllBackends[i], kBackendRows[i].backend);
  }
  const auto past_the_end = static_cast<Backend>(kBackendCount);
  EXPECT_EQ(RowIndexOf(past_the_end), std::nullopt);
  EXPECT_FALSE(KnownBackend(past_the_end));
  EXPECT_EQ(BackendName(past_the_end), "unknown");
}

TEST(BackendTable, NamesAreDistinctAndParseBack) {
  std::set<std::string> names;
  for (const BackendRow& row : kBackendRows) {
    EXPECT_EQ(BackendName(row.backend), row.name);
    EXPECT_EQ(ParseBackend(row.name), row.backend) << row.name;
    EXPECT_TRUE(names.insert(std::string(row.name)).second) << row.name;
  }
}

TEST(BackendTable, LevelsResolveFromTheRow) {
  for (const BackendRow& row : kBackendRows) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_TRUE(KnownBackend(row.backend));
    const LevelRange levels = LevelsOf(row.backend);
    EXPECT_EQ(levels.min, row.levels.min);
    EXPECT_EQ(levels.max, row.levels.max);
    EXPECT_LE(levels.min, levels.default_level);
    EXPECT_LE(levels.default_level, levels.max);
    EXPECT_EQ(ResolveLevel(row.backend, kDefaultLevel).value_or(-2),
              levels.default_level);
    EXPECT_FALSE(ResolveLevel(row.backend, levels.max + 1).ok());
  }
}

TEST(BackendTable, EveryMakerMakesAWriterAndAReaderOfEachFormat) {
  for (const BackendRow& row : kBackendRows) {
    for (Format format : kFormats) {
      SCOPED_TRACE(std::string(row.name) + " " +
                   std::string(FormatName(format)));
      EXPECT_NE(NewDeflater({row.backend, format, row.levels.default_level}),
                nullptr);
      EXPECT_NE(NewInflater({row.backend, format, Strictness::kDecoder}),
                nullptr);
    }
  }
}

// Each direction, format and backend counts apart, and GetTrafficStats()
// reports it under the row's name.
TEST(BackendTable, EveryRowHasItsOwnTrafficReported) {
  std::set<const Traffic*> traffic;
  for (bool compressing : {true, false}) {
    for (Format format : kFormats) {
      for (const BackendRow& row : kBackendRows) {
        EXPECT_TRUE(traffic.insert(&TrafficOf(compressing, format, row.backend))
                        .second);
        CountMessage(compressing, format, row.backend, absl::OkStatus(),
                     /*bytes_in=*/10, /*bytes_out=*/5, /*nanoseconds=*/1);
      }
    }
  }
  const std::vector<TrafficStats> stats = GetTrafficStats();
  ASSERT_EQ(stats.size(), 2 * std::size(kFormats) * kBackendCount);
  for (const BackendRow& row : kBackendRows) {
    size_t rows = 0;
    for (const TrafficStats& stat : stats) {
      if (stat.backend != row.name) continue;
      ++rows;
      EXPECT_EQ(stat.messages, 1u) << row.name;
    }
    EXPECT_EQ(rows, 2 * std::size(kFormats)) << row.name;
  }
}

}  // namespace
}  // namespace pooled_gzip::internal
