// Raw mode: pooled compression for code that handles grpc::ByteBuffer itself
// (generic services and stubs, or custom serialization).
//
// gRPC core decompresses received messages with a fresh zlib stream each.
// A server or channel created with the channel argument
// GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION ("grpc.per_message_decompression")
// set to 0 skips that and hands the application each message as it came off
// the wire, marked with its algorithm; these functions decode it with a pooled
// reader. Typed (protobuf) methods cannot be used on such a server or channel,
// because their parser would see compressed bytes.
//
// Raw mode works on any channel and server, pooled or stock. A call that
// must mix compressed and plain messages (as the gRPC interop case
// client_compressed_streaming does) sends a buffer plain with
// WriteOptions::set_no_compression().
//
// Every function here may be called from any thread, at once from many:
// each takes its writer or reader from the calling thread's pool, and reads
// the options as they stand (a Configure meanwhile applies from the next
// call, or frees a context of retired settings when the call returns it).

#ifndef POOLED_GZIP_RAW_MODE_H_
#define POOLED_GZIP_RAW_MODE_H_

#include <grpc/compression.h>
#include <grpc/grpc.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "pooled_gzip/export.h"

namespace google::protobuf {
class MessageLite;
}  // namespace google::protobuf

namespace pooled_gzip {

// gRPC's default limit on a received message, as gRPC defines it.
inline constexpr size_t kDefaultMaxMessageBytes =
    GRPC_DEFAULT_MAX_RECV_MESSAGE_LENGTH;

// The algorithm a received buffer is still compressed with, or
// GRPC_COMPRESS_NONE when gRPC already decompressed it (or it never was).
POOLED_GZIP_EXPORT grpc_compression_algorithm
ReceivedCompression(const grpc::ByteBuffer& buffer);

// The message bytes of `buffer`, inflated if it is still compressed. A
// compressed buffer of no slices, as gRPC hands over a 0-byte message, is
// the empty message, as gRPC's own decoder reads it. Errors, `out` left
// empty: INVALID_ARGUMENT for an algorithm the plugin does not know;
// DATA_LOSS for corrupt or truncated data; RESOURCE_EXHAUSTED past
// `max_message_bytes`, without allocating past it (`out` never gets room for
// more than max_message_bytes + 1 bytes; room it already had is kept);
// FAILED_PRECONDITION for a buffer that holds no message (default-constructed,
// or left so by a Read that returned false), which gRPC's own readers refuse
// too; INTERNAL if no decoder can be created.
POOLED_GZIP_EXPORT grpc::Status DecodeToString(
    const grpc::ByteBuffer& buffer, std::string* out,
    size_t max_message_bytes = kDefaultMaxMessageBytes);

// As DecodeToString, then parses; INVALID_ARGUMENT if the bytes do not parse.
POOLED_GZIP_EXPORT grpc::Status DecodeMessage(
    const grpc::ByteBuffer& buffer, google::protobuf::MessageLite* message,
    size_t max_message_bytes = kDefaultMaxMessageBytes);

// Compresses `bytes` into a buffer marked as compressed with `algorithm`, so
// gRPC sends it as is with the message's compressed flag set. The caller
// must make `algorithm` the call's algorithm before the first message
// (ClientContext or ServerContext::set_compression_algorithm), or the peer
// will read compressed bytes as the message. GRPC_COMPRESS_NONE gives a plain
// buffer. `level` is of the configured backend (options.h); unset, the
// configured level. Errors, `out` untouched: INVALID_ARGUMENT for an
// algorithm the plugin does not know or a level the backend does not have;
// INTERNAL if no compressor can be created or it fails.
POOLED_GZIP_EXPORT grpc::Status EncodeBytes(
    absl::string_view bytes, grpc_compression_algorithm algorithm,
    grpc::ByteBuffer* out, std::optional<int> level = std::nullopt);

// Serializes, then as EncodeBytes; INTERNAL if the message does not
// serialize.
POOLED_GZIP_EXPORT grpc::Status EncodeMessage(
    const google::protobuf::MessageLite& message,
    grpc_compression_algorithm algorithm, grpc::ByteBuffer* out,
    std::optional<int> level = std::nullopt);

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_RAW_MODE_H_
