// The backends, one row each: the one list that their names, levels,
// makers and traffic rows come from. A new backend is an enumerator at the
// end of Backend (options.h, public), one row here, and one file that
// defines its Deflater, Inflater and BackendMaker (codec/backend.h);
// backend_table_test checks that every user of the table covers every row.

#ifndef POOLED_GZIP_SRC_CODEC_BACKEND_TABLE_H_
#define POOLED_GZIP_SRC_CODEC_BACKEND_TABLE_H_

#include <array>
#include <cstddef>
#include <iterator>
#include <optional>

#include "absl/strings/string_view.h"
#include "codec/backend.h"
#include "codec/isal_backend.h"
#include "codec/libdeflate_backend.h"
#include "codec/zlib_backend.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip {
namespace internal {

struct BackendRow {
  Backend backend;
  absl::string_view name;  // BackendName's, which ParseBackend reads back
  LevelRange levels;       // LevelsOf's
  const BackendMaker* maker;
};

// In the order of Backend's values; a row's index is its traffic row
// (codec/traffic.h) and its place in GetTrafficStats().
inline constexpr BackendRow kBackendRows[] = {
    {Backend::kZlib, "zlib", {0, 9, 6}, &kZlibMaker},
    {Backend::kLibdeflate, "libdeflate", {0, 12, 6}, &kLibdeflateMaker},
    {Backend::kIsal, "isal", {0, 3, 1}, &kIsalMaker},
};
inline constexpr size_t kBackendCount = std::size(kBackendRows);

// The index of `backend`'s row; nullopt for a Backend cast from a number
// none of its values has.
constexpr std::optional<size_t> RowIndexOf(Backend backend) {
  for (size_t i = 0; i < kBackendCount; ++i) {
    if (kBackendRows[i].backend == backend) return i;
  }
  return std::nullopt;
}

// Every backend, in the table's order: for loops over all of them.
constexpr std::array<Backend, kBackendCount> AllBackends() {
  std::array<Backend, kBackendCount> all{};
  for (size_t i = 0; i < kBackendCount; ++i) all[i] = kBackendRows[i].backend;
  return all;
}
inline constexpr std::array<Backend, kBackendCount> kAllBackends =
    AllBackends();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_BACKEND_TABLE_H_
