#include "h2load_request.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "echo.grpc.pb.h"
#include "echo.pb.h"
#include "plain_zlib.h"

namespace pooled_gzip::bench {
namespace {

std::string Framed(bool compressed, const std::string& message) {
  const uint32_t length = static_cast<uint32_t>(message.size());
  std::string frame = {
      static_cast<char>(compressed ? 1 : 0), static_cast<char>(length >> 24),
      static_cast<char>(length >> 16), static_cast<char>(length >> 8),
      static_cast<char>(length)};
  return frame + message;
}

}  // namespace

H2loadRequest MakeH2loadRequest(payloads::Kind kind, size_t size, bool gzip) {
  const std::string payload = payloads::Make(kind, size);
  echo::EchoRequest request;
  request.set_payload(payload);
  echo::EchoResponse response;
  response.set_payload(payload);
  const std::string serialized = request.SerializeAsString();

  H2loadRequest out;
  out.headers = {"content-type: application/grpc", "te: trailers"};
  size_t smallest_reply = response.ByteSizeLong();
  if (gzip) {
    constexpr int kLevel = 6;
    out.frame = Framed(
        true,
        plain_zlib::Deflate(serialized, plain_zlib::Format::kGzip, kLevel));
    const size_t deflated =
        plain_zlib::Deflate(response.SerializeAsString(),
                            plain_zlib::Format::kGzip, kLevel)
            .size();
    smallest_reply = std::min(smallest_reply, deflated * 3 / 4);
    out.headers.push_back("grpc-encoding: gzip");
    out.headers.push_back("grpc-accept-encoding: gzip");
  } else {
    out.frame = Framed(false, serialized);
  }
  out.smallest_reply_frame = kGrpcPrefixBytes + smallest_reply;
  return out;
}

std::string UnaryEchoPath() {
  return absl::StrCat("/", echo::Echo::service_full_name(), "/Unary");
}

}  // namespace pooled_gzip::bench
