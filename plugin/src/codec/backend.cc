#include "codec/backend.h"

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/isal_backend.h"
#include "codec/libdeflate_backend.h"
#include "codec/zlib_backend.h"

namespace pooled_gzip {
namespace internal {
namespace {

absl::StatusOr<int> CheckLevel(Backend backend, int level, int min, int max,
                               int default_level) {
  if (level == kDefaultLevel) return default_level;
  if (level >= min && level <= max) return level;
  return absl::InvalidArgumentError(
      absl::StrCat(BackendName(backend), " levels are ", min, "..", max,
                   " (or -1 for ", default_level, "), got ", level));
}

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
  switch (backend) {
    case Backend::kZlib:
      return CheckLevel(backend, level, kZlibMinLevel, kZlibMaxLevel, 6);
    case Backend::kLibdeflate:
      return CheckLevel(backend, level, kLibdeflateMinLevel,
                        kLibdeflateMaxLevel, kLibdeflateDefaultLevel);
    case Backend::kIsal:
      return CheckLevel(backend, level, kIsalMinLevel, kIsalMaxLevel,
                        kIsalDefaultLevel);
  }
  return absl::InvalidArgumentError("unknown backend");
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
