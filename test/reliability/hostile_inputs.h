// Hostile compressed messages, made with plain zlib (testing/plain_zlib.h,
// independent of the code under test), the raw-mode buffers that carry
// them, and a call that sends one.

#ifndef POOLED_GZIP_TEST_RELIABILITY_HOSTILE_INPUTS_H_
#define POOLED_GZIP_TEST_RELIABILITY_HOSTILE_INPUTS_H_

#include <grpc/impl/codegen/compression_types.h>
#include <grpcpp/channel.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "codec/codec.h"

namespace pooled_gzip::reliability {

inline constexpr size_t kGiB = size_t{1} << 30;

// A decompression bomb: `zeros` zero bytes compressed at level 9 (1 GiB
// gives about 1 MiB), made from one deflated MiB (zeros_deflated.h), so
// the uncompressed form never exists in this process. They are the payload of a
// serialized EchoRequest, so that a typed server that inflated the whole
// thing would also have a message it could parse.
std::string ZeroBomb(size_t zeros, internal::Format format);

// A buffer as gRPC hands it over in raw mode: `bytes` in slices of at most
// `slice_bytes`, marked as still compressed with `algorithm`.
grpc::ByteBuffer FlaggedBuffer(absl::string_view bytes,
                               grpc_compression_algorithm algorithm,
                               size_t slice_bytes = ~size_t{0});

// What one pre-compressed gzip request did to this process's memory.
struct FlaggedCall {
  grpc::Status status;
  size_t rss_before = 0;  // bytes, just before the call
  size_t peak_rss = 0;    // bytes, highest during the call
  size_t PeakGrowth() const {
    return peak_rss - std::min(peak_rss, rss_before);
  }
};

// Sends `gzip` as it is, flagged, in 16 KiB slices, as one Echo.Unary
// request on `channel`, with the peak RSS reset just before the call.
FlaggedCall SendFlaggedGzip(const std::shared_ptr<grpc::Channel>& channel,
                            absl::string_view gzip);

}  // namespace pooled_gzip::reliability

#endif  // POOLED_GZIP_TEST_RELIABILITY_HOSTILE_INPUTS_H_
