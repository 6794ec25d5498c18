// A gRPC client written directly on HTTP/2 frames, with no gRPC library: it
// can send what no real client would, such as a message flagged compressed
// whose bytes are not valid gzip. Header blocks are encoded with
// libnghttp2's HPACK deflater; everything both ways is fed to a
// ConnectionDecoder, whose record says how the server answered.

#ifndef POOLED_GZIP_TEST_INTEROP_HARNESS_RAW_HTTP2_CLIENT_H_
#define POOLED_GZIP_TEST_INTEROP_HARNESS_RAW_HTTP2_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "connection_decoder.h"
#include "http2_frame.h"

struct nghttp2_hd_deflater;

namespace pooled_gzip::interop {

class RawHttp2Client {
 public:
  // Connects to 127.0.0.1:`port` and sends the preface and SETTINGS.
  static absl::StatusOr<std::unique_ptr<RawHttp2Client>> Connect(int port);
  ~RawHttp2Client();
  RawHttp2Client(const RawHttp2Client&) = delete;
  RawHttp2Client& operator=(const RawHttp2Client&) = delete;

  // Sends one call in full: request headers (with grpc-encoding
  // `encoding` unless empty) and `data`, the gRPC-framed request bytes, in
  // one DATA frame with END_STREAM. Returns the stream id.
  absl::StatusOr<uint32_t> Call(const std::string& path,
                                const std::string& encoding,
                                absl::string_view data);

  // Reads until the server ended stream `id` (trailers or RST_STREAM).
  absl::StatusOr<StreamRecord> Await(uint32_t id, absl::Duration timeout);

 private:
  RawHttp2Client(int fd, int port);
  absl::Status Send(const std::string& bytes);
  // Reads one batch of bytes, answering SETTINGS and PING as HTTP/2 asks.
  absl::Status ReadSome(absl::Duration timeout);

  const int fd_;
  const int port_;
  nghttp2_hd_deflater* deflater_ = nullptr;
  FrameSplitter incoming_{/*expect_preface=*/false};
  ConnectionDecoder decoder_{0};
  uint32_t next_stream_ = 1;
};

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_HARNESS_RAW_HTTP2_CLIENT_H_
