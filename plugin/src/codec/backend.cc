#include "codec/backend.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "codec/backend_table.h"

namespace pooled_gzip {
namespace internal {
namespace {

const BackendRow* RowOf(Backend backend) {
  const std::optional<size_t> index = RowIndexOf(backend);
  return index ? &kBackendRows[*index] : nullptr;
}

}  // namespace

LevelRange LevelsOf(Backend backend) {
  const BackendRow* row = RowOf(backend);
  return row != nullptr ? row->levels : LevelRange{0, -1, 0};
}

absl::StatusOr<int> ResolveLevel(Backend backend, int level) {
  if (!KnownBackend(backend)) {
    return absl::InvalidArgumentError("unknown backend");
  }
  const LevelRange levels = LevelsOf(backend);
  if (level == kDefaultLevel) return levels.default_level;
  if (level >= levels.min && level <= levels.max) return level;
  return absl::InvalidArgumentError(absl::StrCat(
      BackendName(backend), " levels are ", levels.min, "..", levels.max,
      " (or -1 for ", levels.default_level, "), got ", level));
}

bool KnownBackend(Backend backend) { return RowOf(backend) != nullptr; }

std::unique_ptr<Deflater> NewDeflater(const DeflaterKey& key) {
  const BackendRow* row = RowOf(key.backend);
  return row != nullptr ? row->maker->new_deflater(key.format, key.level)
                        : nullptr;
}

std::unique_ptr<Inflater> NewInflater(const InflaterKey& key) {
  const BackendRow* row = RowOf(key.backend);
  return row != nullptr ? row->maker->new_inflater(key.format, key.strictness)
                        : nullptr;
}

}  // namespace internal
}  // namespace pooled_gzip
