#include "pooled_gzip/options.h"

#include <cstddef>
#include <optional>

#include "absl/strings/match.h"
#include "codec/backend_table.h"
#include "codec/settings.h"

namespace pooled_gzip {

absl::string_view BackendName(Backend backend) {
  const std::optional<size_t> row = internal::RowIndexOf(backend);
  return row ? internal::kBackendRows[*row].name : "unknown";
}

std::optional<Backend> ParseBackend(absl::string_view name) {
  for (const internal::BackendRow& row : internal::kBackendRows) {
    if (absl::EqualsIgnoreCase(name, row.name)) return row.backend;
  }
  return std::nullopt;
}

// Over the settings' one owner (codec/settings.h).
absl::Status Configure(const Options& options) {
  return internal::ApplyOptions(options);
}

Options GetOptions() { return internal::AppliedOptions(); }

}  // namespace pooled_gzip
