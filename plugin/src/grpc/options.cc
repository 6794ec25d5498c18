// pooled_gzip::Configure and GetOptions, over the settings' one owner.

#include "pooled_gzip/options.h"

#include "codec/settings.h"

namespace pooled_gzip {

absl::Status Configure(const Options& options) {
  return internal::ApplyOptions(options);
}

Options GetOptions() { return internal::AppliedOptions(); }

}  // namespace pooled_gzip
