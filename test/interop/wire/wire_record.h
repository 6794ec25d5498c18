// What the wire decoder saw on one connection: per stream and direction, the
// headers and every gRPC message with its compressed flag and, when flagged,
// whether plain zlib could inflate it.

#ifndef POOLED_GZIP_TEST_INTEROP_WIRE_WIRE_RECORD_H_
#define POOLED_GZIP_TEST_INTEROP_WIRE_WIRE_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace pooled_gzip::interop {

enum Direction { kClientToServer = 0, kServerToClient = 1 };

const char* DirectionName(Direction direction);

struct WireMessage {
  bool compressed_flag = false;
  size_t wire_bytes = 0;  // after the 5-byte prefix, as sent
  // The message: inflated with plain zlib when flagged, else as sent. Empty
  // if a flagged message did not inflate; `error` then says why.
  std::string bytes;
  std::string error;
  bool ok() const { return error.empty(); }
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// One direction of one stream.
struct HalfStream {
  // Every header field, from all header blocks in order (request headers;
  // or response headers, then trailers).
  HeaderList headers;
  std::vector<WireMessage> messages;
  bool end_stream = false;
  // Bytes of a gRPC message that never completed.
  size_t incomplete_bytes = 0;

  // First value of `name`, if present.
  std::optional<std::string> Header(const std::string& name) const;
};

struct StreamRecord {
  int connection = 0;  // order in which the relay accepted connections
  uint32_t id = 0;
  // When the decoder first saw the stream: orders calls that a client made
  // one after another on different connections.
  absl::Time opened_at;
  HalfStream half[2];  // indexed by Direction
  std::optional<uint32_t> rst_stream_code;

  const HalfStream& client() const { return half[kClientToServer]; }
  const HalfStream& server() const { return half[kServerToClient]; }
  std::string path() const;
  // The grpc-encoding one side declared; "" if it sent none.
  std::string encoding(Direction direction) const;
  // grpc-status from the server's trailers (or trailers-only response).
  std::optional<int> grpc_status() const;
};

struct ConnectionRecord {
  int index = 0;
  std::map<uint32_t, StreamRecord> streams;
  // Anything the decoder could not follow; a healthy run has none.
  std::vector<std::string> errors;
  std::optional<uint32_t> goaway_code[2];  // per Direction of the GOAWAY
};

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_WIRE_WIRE_RECORD_H_
