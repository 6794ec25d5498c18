#include "wire_record.h"

#include "absl/strings/numbers.h"

namespace pooled_gzip::interop {

const char* DirectionName(Direction direction) {
  return direction == kClientToServer ? "client->server" : "server->client";
}

std::optional<std::string> HalfStream::Header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::string StreamRecord::path() const {
  return client().Header(":path").value_or("");
}

std::string StreamRecord::encoding(Direction direction) const {
  return half[direction].Header("grpc-encoding").value_or("");
}

std::optional<int> StreamRecord::grpc_status() const {
  std::optional<std::string> status = server().Header("grpc-status");
  int code;
  if (!status || !absl::SimpleAtoi(*status, &code)) return std::nullopt;
  return code;
}

}  // namespace pooled_gzip::interop
