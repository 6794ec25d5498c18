#include "connection_decoder.h"

#include <nghttp2/nghttp2.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "plain_zlib.h"

namespace pooled_gzip::interop {
namespace {

constexpr size_t kGrpcPrefixBytes = 5;

uint32_t BigEndian32(absl::string_view bytes) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return value;
}

Direction Other(Direction direction) {
  return direction == kClientToServer ? kServerToClient : kClientToServer;
}

}  // namespace

ConnectionDecoder::ConnectionDecoder(int connection_index)
    : sides_{Side(/*client=*/true), Side(/*client=*/false)} {
  record_.index = connection_index;
  for (Side& side : sides_) nghttp2_hd_inflate_new(&side.inflater);
}

ConnectionDecoder::~ConnectionDecoder() {
  for (Side& side : sides_) nghttp2_hd_inflate_del(side.inflater);
}

void ConnectionDecoder::Feed(Direction direction, absl::string_view bytes) {
  Side& side = sides_[direction];
  side.splitter.Append(bytes);
  Frame frame;
  while (side.splitter.Next(&frame)) OnFrame(direction, frame);
  // A stream that cannot be split is not followed further; report it once.
  if (!side.splitter.error().empty() && !side.broken) {
    side.broken = true;
    Error(direction, side.splitter.error());
  }
}

void ConnectionDecoder::OnFrame(Direction direction, const Frame& frame) {
  Side& side = sides_[direction];
  if (!side.header_block.empty() || side.header_stream != 0) {
    if (frame.type != kContinuation || frame.stream_id != side.header_stream) {
      Error(direction, "header block interrupted by another frame");
    }
  }
  absl::string_view content;
  switch (frame.type) {
    case kHeaders:
      if (!StripPaddingAndPriority(frame, &content)) {
        Error(direction, "malformed HEADERS frame");
        return;
      }
      side.header_stream = frame.stream_id;
      side.header_end_stream = frame.flags & kEndStream;
      OnHeaderFragment(direction, frame, content);
      break;
    case kContinuation:
      OnHeaderFragment(direction, frame, frame.payload);
      break;
    case kData:
      OnData(direction, frame);
      break;
    case kSettings:
      OnSettings(direction, frame);
      break;
    case kRstStream:
      if (frame.payload.size() == 4) {
        Stream(frame.stream_id).rst_stream_code = BigEndian32(frame.payload);
      }
      break;
    case kGoAway:
      if (frame.payload.size() >= 8) {
        record_.goaway_code[direction] =
            BigEndian32(absl::string_view(frame.payload).substr(4));
      }
      break;
    case kPushPromise:
      // gRPC never pushes; its header block would also desync HPACK.
      Error(direction, "PUSH_PROMISE on a gRPC connection");
      break;
    default:
      break;  // PING, PRIORITY, WINDOW_UPDATE and unknown types: no content
  }
}

void ConnectionDecoder::OnHeaderFragment(Direction direction,
                                         const Frame& frame,
                                         absl::string_view fragment) {
  Side& side = sides_[direction];
  side.header_block.append(fragment.data(), fragment.size());
  if (!(frame.flags & kEndHeaders)) return;
  DecodeHeaderBlock(direction);
  const uint32_t stream_id = side.header_stream;
  const bool end_stream = side.header_end_stream;
  side.header_block.clear();
  side.header_stream = 0;
  if (end_stream) EndStream(direction, stream_id);
}

void ConnectionDecoder::DecodeHeaderBlock(Direction direction) {
  Side& side = sides_[direction];
  HalfStream& half = Stream(side.header_stream).half[direction];
  auto* in = reinterpret_cast<const uint8_t*>(side.header_block.data());
  size_t left = side.header_block.size();
  // The loop nghttp2's documentation prescribes for a complete block.
  for (;;) {
    nghttp2_nv nv;
    int inflate_flags = 0;
    const ssize_t used =
        nghttp2_hd_inflate_hd2(side.inflater, &nv, &inflate_flags, in, left,
                               /*in_final=*/1);
    if (used < 0) {
      Error(direction, absl::StrCat("HPACK error: ",
                                    nghttp2_strerror(static_cast<int>(used))));
      return;
    }
    in += used;
    left -= static_cast<size_t>(used);
    if (inflate_flags & NGHTTP2_HD_INFLATE_EMIT) {
      half.headers.emplace_back(
          std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
          std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen));
    }
    if (inflate_flags & NGHTTP2_HD_INFLATE_FINAL) {
      nghttp2_hd_inflate_end_headers(side.inflater);
      return;
    }
    if (!(inflate_flags & NGHTTP2_HD_INFLATE_EMIT) && left == 0) return;
  }
}

void ConnectionDecoder::OnData(Direction direction, const Frame& frame) {
  absl::string_view content;
  if (!StripPaddingAndPriority(frame, &content)) {
    Error(direction, "malformed DATA frame");
    return;
  }
  std::string& buffer = sides_[direction].partial[frame.stream_id];
  buffer.append(content.data(), content.size());
  StreamRecord& stream = Stream(frame.stream_id);
  HalfStream& half = stream.half[direction];
  size_t offset = 0;
  while (buffer.size() - offset >= kGrpcPrefixBytes) {
    absl::string_view rest = absl::string_view(buffer).substr(offset);
    const uint8_t flag = static_cast<uint8_t>(rest[0]);
    const uint32_t length = BigEndian32(rest.substr(1));
    if (rest.size() - kGrpcPrefixBytes < length) break;
    const absl::string_view body = rest.substr(kGrpcPrefixBytes, length);
    offset += kGrpcPrefixBytes + length;
    WireMessage& message = half.messages.emplace_back();
    message.compressed_flag = flag == 1;
    message.wire_bytes = length;
    if (flag > 1) {
      message.error = absl::StrCat("invalid compressed-flag byte ", flag);
    } else if (!message.compressed_flag) {
      message.bytes.assign(body.data(), body.size());
    } else {
      const std::string encoding = stream.encoding(direction);
      if (encoding.empty() || encoding == "identity") {
        message.error = "compressed flag set on a call without grpc-encoding";
      } else {
        absl::StatusOr<std::string> inflated =
            plain_zlib::InflateOne(body, encoding);
        if (inflated.ok()) {
          message.bytes = *std::move(inflated);
        } else {
          message.error = std::string(inflated.status().message());
        }
      }
    }
  }
  buffer.erase(0, offset);
  if (frame.flags & kEndStream) EndStream(direction, frame.stream_id);
}

void ConnectionDecoder::OnSettings(Direction direction, const Frame& frame) {
  if (frame.flags & kAck) return;
  if (frame.payload.size() % 6 != 0) {
    Error(direction, "malformed SETTINGS frame");
    return;
  }
  for (size_t at = 0; at < frame.payload.size(); at += 6) {
    const absl::string_view entry =
        absl::string_view(frame.payload).substr(at, 6);
    const uint16_t id = static_cast<uint16_t>(
        (static_cast<uint8_t>(entry[0]) << 8) | static_cast<uint8_t>(entry[1]));
    if (id != kSettingsHeaderTableSize) continue;
    // This side's HPACK decoder size bounds the encoder of the other side,
    // that is, the header blocks travelling the other way.
    nghttp2_hd_inflate_change_table_size(sides_[Other(direction)].inflater,
                                         BigEndian32(entry.substr(2)));
  }
}

void ConnectionDecoder::EndStream(Direction direction, uint32_t stream_id) {
  HalfStream& half = Stream(stream_id).half[direction];
  half.end_stream = true;
  auto partial = sides_[direction].partial.find(stream_id);
  if (partial != sides_[direction].partial.end()) {
    half.incomplete_bytes = partial->second.size();
    sides_[direction].partial.erase(partial);
  }
}

StreamRecord& ConnectionDecoder::Stream(uint32_t id) {
  auto [it, inserted] = record_.streams.try_emplace(id);
  StreamRecord& stream = it->second;
  if (inserted) {
    stream.connection = record_.index;
    stream.id = id;
    stream.opened_at = absl::Now();
  }
  return stream;
}

void ConnectionDecoder::Error(Direction direction, const std::string& what) {
  record_.errors.push_back(absl::StrCat(DirectionName(direction), ": ", what));
}

}  // namespace pooled_gzip::interop
