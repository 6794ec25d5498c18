#include "codec/backend.h"

#include "absl/strings/str_cat.h"
#include "codec/isal_backend.h"
#include "codec/libdeflate_backend.h"
#include "codec/zlib_backend.h"

namespace pooled_gzip {
namespace internal {
namespace {

const BackendMaker* MakerOf(Backend backend) {
  switch (backend) {
    case Backend::kZlib:
      return &kZlibMaker;
    case Backend::kLibdeflate:
      return &kLibdeflateMaker;
    case Backend::kIsal:
      return &kIsalMaker;
  }
  return nullptr;
}

}  // namespace

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

bool KnownBackend(Backend backend) { return MakerOf(backend) != nullptr; }

std::unique_ptr<Deflater> NewDeflater(const DeflaterKey& key) {
  const BackendMaker* maker = MakerOf(key.backend);
  return maker != nullptr ? maker->new_deflater(key.format, key.level)
                          : nullptr;
}

std::unique_ptr<Inflater> NewInflater(const InflaterKey& key) {
  const BackendMaker* maker = MakerOf(key.backend);
  return maker != nullptr ? maker->new_inflater(key.format, key.strictness)
                          : nullptr;
}

}  // namespace internal
}  // namespace pooled_gzip
