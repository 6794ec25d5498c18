// One message through the process-wide pools, for the tests that only need
// to know that a writer and a reader worked.

#ifndef POOLED_GZIP_TESTING_ROUND_TRIP_H_
#define POOLED_GZIP_TESTING_ROUND_TRIP_H_

#include <string>

#include "codec/codec.h"

namespace pooled_gzip::test_support {

// `text` through a pooled writer and reader of `format` at `level`: whether
// it came back as it was.
inline bool RoundTrips(const std::string& text, internal::Format format,
                       int level) {
  internal::CompressOptions options;
  options.format = format;
  options.level = level;
  std::string compressed;
  std::string inflated;
  return internal::CompressToString(text, options, &compressed).ok() &&
         internal::DecompressToString(compressed, format, text.size(),
                                      &inflated)
             .ok() &&
         inflated == text;
}

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TESTING_ROUND_TRIP_H_
