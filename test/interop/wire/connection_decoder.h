// Decodes both directions of one HTTP/2 connection carrying gRPC: frames by
// hand (http2_frame.h), header blocks with libnghttp2's HPACK inflater, gRPC
// messages from DATA frames, and compressed messages with plain zlib. It
// shares no code with gRPC or pooled-gzip, which is the point: it is the
// independent witness of what went over the wire.

#ifndef POOLED_GZIP_TEST_INTEROP_WIRE_CONNECTION_DECODER_H_
#define POOLED_GZIP_TEST_INTEROP_WIRE_CONNECTION_DECODER_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "http2_frame.h"
#include "wire_record.h"

struct nghttp2_hd_inflater;

namespace pooled_gzip::interop {

class ConnectionDecoder {
 public:
  explicit ConnectionDecoder(int connection_index);
  ~ConnectionDecoder();
  ConnectionDecoder(const ConnectionDecoder&) = delete;
  ConnectionDecoder& operator=(const ConnectionDecoder&) = delete;

  // Bytes as they pass in `direction`, in any chunking.
  void Feed(Direction direction, absl::string_view bytes);
  // A frame that the caller split itself.
  void OnFrame(Direction direction, const Frame& frame);

  const ConnectionRecord& record() const { return record_; }

 private:
  struct Side {
    explicit Side(bool client) : splitter(client) {}
    FrameSplitter splitter;
    bool broken = false;
    nghttp2_hd_inflater* inflater = nullptr;
    // A header block spread over HEADERS and CONTINUATION frames.
    uint32_t header_stream = 0;
    std::string header_block;
    bool header_end_stream = false;
    // Bytes of gRPC messages not yet complete, per stream.
    std::map<uint32_t, std::string> partial;
  };

  void OnHeaderFragment(Direction direction, const Frame& frame,
                        absl::string_view fragment);
  void DecodeHeaderBlock(Direction direction);
  void OnData(Direction direction, const Frame& frame);
  void OnSettings(Direction direction, const Frame& frame);
  void EndStream(Direction direction, uint32_t stream_id);
  StreamRecord& Stream(uint32_t id);
  void Error(Direction direction, const std::string& what);

  Side sides_[2];
  ConnectionRecord record_;
};

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_WIRE_CONNECTION_DECODER_H_
