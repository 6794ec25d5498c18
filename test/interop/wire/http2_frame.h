// HTTP/2 frames (RFC 9113 section 4) as bytes: splitting a byte stream into
// frames, and writing frames. Written for this suite, independently of any
// gRPC implementation, so that it can judge what gRPC puts on the wire.

#ifndef POOLED_GZIP_TEST_INTEROP_WIRE_HTTP2_FRAME_H_
#define POOLED_GZIP_TEST_INTEROP_WIRE_HTTP2_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace pooled_gzip::interop {

// The 24 bytes a client sends before its first frame.
inline constexpr absl::string_view kClientPreface =
    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum FrameType : uint8_t {
  kData = 0x0,
  kHeaders = 0x1,
  kPriority = 0x2,
  kRstStream = 0x3,
  kSettings = 0x4,
  kPushPromise = 0x5,
  kPing = 0x6,
  kGoAway = 0x7,
  kWindowUpdate = 0x8,
  kContinuation = 0x9,
};

enum FrameFlag : uint8_t {
  kEndStream = 0x1,  // DATA, HEADERS
  kAck = 0x1,        // SETTINGS, PING
  kEndHeaders = 0x4,
  kPadded = 0x8,
  kPriorityFlag = 0x20,
};

inline constexpr uint16_t kSettingsHeaderTableSize = 0x1;

struct Frame {
  uint8_t type = 0;
  uint8_t flags = 0;
  uint32_t stream_id = 0;
  std::string payload;
};

// Cuts a byte stream into frames; bytes may arrive in any chunking.
class FrameSplitter {
 public:
  // `expect_preface`: the stream starts with kClientPreface (the client's
  // side of a connection), which is checked and skipped.
  explicit FrameSplitter(bool expect_preface) : need_preface_(expect_preface) {}

  void Append(absl::string_view bytes) {
    buffer_.append(bytes.data(), bytes.size());
  }

  // Takes the next complete frame. False when more bytes are needed, or on
  // a malformed stream, in which case error() says why.
  bool Next(Frame* frame);

  const std::string& error() const { return error_; }
  // Bytes received that do not yet form a whole frame.
  size_t pending_bytes() const { return buffer_.size() - offset_; }

 private:
  std::string buffer_;
  size_t offset_ = 0;
  bool need_preface_;
  std::string error_;
};

// Appends one frame, header and payload, to `out`.
void AppendFrame(std::string* out, uint8_t type, uint8_t flags,
                 uint32_t stream_id, absl::string_view payload);

// The content of a DATA or HEADERS payload without its padding and (for
// HEADERS) priority fields. False if the frame's lengths do not add up.
bool StripPaddingAndPriority(const Frame& frame, absl::string_view* content);

// A gRPC length-prefixed message: compressed-flag byte, 4-byte big-endian
// length, then the bytes.
std::string GrpcFrame(bool compressed, absl::string_view bytes);

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_WIRE_HTTP2_FRAME_H_
