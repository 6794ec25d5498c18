// pooled_gzip::Configure: the codec's settings and the core codec's cap.

#include "pooled_gzip/options.h"

#include "codec/codec.h"
#include "grpc/core_codec.h"

namespace pooled_gzip {

absl::Status Configure(const Options& options) {
  absl::Status status = internal::SetSettings({options.backend, options.level});
  if (!status.ok()) return status;
  internal::SetExplicitDecompressCap(options.max_decompressed_bytes);
  return absl::OkStatus();
}

Options GetOptions() {
  const internal::CodecSettings settings = internal::CurrentSettings();
  Options options;
  options.backend = settings.backend;
  options.level = settings.level;
  options.max_decompressed_bytes = internal::ExplicitDecompressCap();
  return options;
}

}  // namespace pooled_gzip
