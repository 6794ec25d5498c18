#include "pooled_gzip/options.h"

#include "absl/strings/match.h"
#include "codec/settings.h"

namespace pooled_gzip {

absl::string_view BackendName(Backend backend) {
  switch (backend) {
    case Backend::kZlib:
      return "zlib";
    case Backend::kLibdeflate:
      return "libdeflate";
    case Backend::kIsal:
      return "isal";
  }
  return "unknown";
}

std::optional<Backend> ParseBackend(absl::string_view name) {
  for (Backend backend :
       {Backend::kZlib, Backend::kLibdeflate, Backend::kIsal}) {
    if (absl::EqualsIgnoreCase(name, BackendName(backend))) return backend;
  }
  return std::nullopt;
}

// Over the settings' one owner (codec/settings.h).
absl::Status Configure(const Options& options) {
  return internal::ApplyOptions(options);
}

Options GetOptions() { return internal::AppliedOptions(); }

}  // namespace pooled_gzip
