#include "raw_http2_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pooled_gzip::interop {
namespace {

// Points into `name` and `value`, which must outlive the header block
// encoding: literals, or strings the caller keeps.
nghttp2_nv Header(absl::string_view name, absl::string_view value) {
  nghttp2_nv nv;
  nv.name = reinterpret_cast<uint8_t*>(const_cast<char*>(name.data()));
  nv.namelen = name.size();
  nv.value = reinterpret_cast<uint8_t*>(const_cast<char*>(value.data()));
  nv.valuelen = value.size();
  nv.flags = NGHTTP2_NV_FLAG_NONE;
  return nv;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RawHttp2Client>> RawHttp2Client::Connect(
    int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
      0) {
    close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to ", port));
  }
  std::unique_ptr<RawHttp2Client> client(new RawHttp2Client(fd, port));
  std::string hello(kClientPreface.data(), kClientPreface.size());
  AppendFrame(&hello, kSettings, 0, 0, "");
  absl::Status sent = client->Send(hello);
  if (!sent.ok()) return sent;
  return client;
}

RawHttp2Client::RawHttp2Client(int fd, int port) : fd_(fd), port_(port) {
  nghttp2_hd_deflate_new(&deflater_, 4096);
}

RawHttp2Client::~RawHttp2Client() {
  nghttp2_hd_deflate_del(deflater_);
  close(fd_);
}

absl::Status RawHttp2Client::Send(const std::string& bytes) {
  decoder_.Feed(kClientToServer, bytes);
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n =
        send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::UnavailableError("connection closed on send");
    sent += n;
  }
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> RawHttp2Client::Call(const std::string& path,
                                              const std::string& encoding,
                                              absl::string_view data) {
  const uint32_t id = next_stream_;
  next_stream_ += 2;
  const std::string authority = absl::StrCat("127.0.0.1:", port_);
  std::vector<nghttp2_nv> headers = {
      Header(":method", "POST"),
      Header(":scheme", "http"),
      Header(":path", path),
      Header(":authority", authority),
      Header("content-type", "application/grpc"),
      Header("te", "trailers"),
      Header("grpc-accept-encoding", "identity,deflate,gzip"),
  };
  if (!encoding.empty()) headers.push_back(Header("grpc-encoding", encoding));
  std::string block(
      nghttp2_hd_deflate_bound(deflater_, headers.data(), headers.size()),
      '\0');
  const ssize_t length =
      nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<uint8_t*>(block.data()),
                            block.size(), headers.data(), headers.size());
  if (length < 0) return absl::InternalError("HPACK encoding failed");
  block.resize(length);
  std::string frames;
  AppendFrame(&frames, kHeaders, kEndHeaders, id, block);
  AppendFrame(&frames, kData, kEndStream, id, data);
  absl::Status sent = Send(frames);
  if (!sent.ok()) return sent;
  return id;
}

absl::Status RawHttp2Client::ReadSome(absl::Duration timeout) {
  pollfd fd = {fd_, POLLIN, 0};
  const int ready =
      poll(&fd, 1, static_cast<int>(absl::ToInt64Milliseconds(timeout)));
  if (ready <= 0) return absl::OkStatus();
  char buffer[16384];
  const ssize_t n = read(fd_, buffer, sizeof(buffer));
  if (n == 0 || (n < 0 && errno != EINTR)) {
    return absl::UnavailableError("the server closed the connection");
  }
  if (n < 0) return absl::OkStatus();
  incoming_.Append(absl::string_view(buffer, n));
  Frame frame;
  while (incoming_.Next(&frame)) {
    decoder_.OnFrame(kServerToClient, frame);
    std::string reply;
    if (frame.type == kSettings && !(frame.flags & kAck)) {
      AppendFrame(&reply, kSettings, kAck, 0, "");
    } else if (frame.type == kPing && !(frame.flags & kAck)) {
      AppendFrame(&reply, kPing, kAck, 0, frame.payload);
    }
    if (!reply.empty()) {
      absl::Status sent = Send(reply);
      if (!sent.ok()) return sent;
    }
  }
  if (!incoming_.error().empty()) return absl::DataLossError(incoming_.error());
  return absl::OkStatus();
}

absl::StatusOr<StreamRecord> RawHttp2Client::Await(uint32_t id,
                                                   absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    auto found = decoder_.record().streams.find(id);
    if (found != decoder_.record().streams.end() &&
        (found->second.server().end_stream ||
         found->second.rst_stream_code.has_value())) {
      return found->second;
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(
          absl::StrCat("stream ", id, " did not end"));
    }
    absl::Status read = ReadSome(std::min(left, absl::Milliseconds(200)));
    if (!read.ok()) return read;
  }
}

}  // namespace pooled_gzip::interop
