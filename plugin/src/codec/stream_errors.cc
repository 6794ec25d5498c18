#include "codec/stream_errors.h"

#include "absl/strings/str_cat.h"

namespace pooled_gzip {
namespace internal {

absl::Status StreamTooLarge(Format format, size_t max) {
  return absl::ResourceExhaustedError(absl::StrCat(
      FormatName(format), " stream would be more than ", max, " bytes"));
}

absl::Status MessageTooLarge(Format format, size_t max) {
  return absl::ResourceExhaustedError(absl::StrCat(
      FormatName(format), " message inflates to more than ", max, " bytes"));
}

absl::Status TruncatedMessage(Format format) {
  return absl::DataLossError(
      absl::StrCat(FormatName(format), " message is truncated"));
}

absl::Status CorruptMessage(Format format, absl::string_view detail) {
  return absl::DataLossError(
      absl::StrCat(FormatName(format), " message is corrupt: ", detail));
}

absl::Status TrailingBytes(Format format) {
  return absl::DataLossError(absl::StrCat(
      FormatName(format), " message has bytes after the end of its stream"));
}

}  // namespace internal
}  // namespace pooled_gzip
