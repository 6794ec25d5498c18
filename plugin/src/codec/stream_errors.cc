#include "codec/stream_errors.h"

#include "absl/strings/str_cat.h"

namespace pooled_gzip {
namespace internal {

absl::Status StreamTooLarge(Format format, size_t max) {
  return absl::ResourceExhaustedError(absl::StrCat(
      FormatName(format), " stream would be more than ", max, " bytes"));
}

}  // namespace internal
}  // namespace pooled_gzip
