#include "http2_frame.h"

namespace pooled_gzip::interop {
namespace {

// SETTINGS_MAX_FRAME_SIZE can be raised to 2^24-1; accept anything the
// 24-bit length field can say.
constexpr size_t kFrameHeaderBytes = 9;

uint32_t ReadBigEndian(const std::string& bytes, size_t at, int width) {
  uint32_t value = 0;
  for (int i = 0; i < width; ++i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  }
  return value;
}

void AppendBigEndian(std::string* out, uint32_t value, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

}  // namespace

bool FrameSplitter::Next(Frame* frame) {
  if (!error_.empty()) return false;
  if (need_preface_) {
    if (pending_bytes() < kClientPreface.size()) return false;
    if (absl::string_view(buffer_).substr(offset_, kClientPreface.size()) !=
        kClientPreface) {
      error_ = "client did not start with the HTTP/2 preface";
      return false;
    }
    offset_ += kClientPreface.size();
    need_preface_ = false;
  }
  if (pending_bytes() < kFrameHeaderBytes) return false;
  const uint32_t length = ReadBigEndian(buffer_, offset_, 3);
  if (pending_bytes() < kFrameHeaderBytes + length) return false;
  frame->type = static_cast<uint8_t>(buffer_[offset_ + 3]);
  frame->flags = static_cast<uint8_t>(buffer_[offset_ + 4]);
  frame->stream_id = ReadBigEndian(buffer_, offset_ + 5, 4) & 0x7fffffffu;
  frame->payload.assign(buffer_, offset_ + kFrameHeaderBytes, length);
  offset_ += kFrameHeaderBytes + length;
  // Drop consumed bytes now and then, not per frame, to stay linear.
  if (offset_ > (1u << 20) || offset_ == buffer_.size()) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  return true;
}

void AppendFrame(std::string* out, uint8_t type, uint8_t flags,
                 uint32_t stream_id, absl::string_view payload) {
  AppendBigEndian(out, static_cast<uint32_t>(payload.size()), 3);
  out->push_back(static_cast<char>(type));
  out->push_back(static_cast<char>(flags));
  AppendBigEndian(out, stream_id & 0x7fffffffu, 4);
  out->append(payload.data(), payload.size());
}

bool StripPaddingAndPriority(const Frame& frame, absl::string_view* content) {
  absl::string_view rest = frame.payload;
  size_t padding = 0;
  if (frame.flags & kPadded) {
    if (rest.empty()) return false;
    padding = static_cast<uint8_t>(rest[0]);
    rest.remove_prefix(1);
  }
  if (frame.type == kHeaders && (frame.flags & kPriorityFlag)) {
    if (rest.size() < 5) return false;
    rest.remove_prefix(5);  // stream dependency (4) and weight (1)
  }
  if (rest.size() < padding) return false;
  rest.remove_suffix(padding);
  *content = rest;
  return true;
}

std::string GrpcFrame(bool compressed, absl::string_view bytes) {
  std::string out;
  out.push_back(compressed ? 1 : 0);
  AppendBigEndian(&out, static_cast<uint32_t>(bytes.size()), 4);
  out.append(bytes.data(), bytes.size());
  return out;
}

}  // namespace pooled_gzip::interop
