// The four interop compression cases of gRPC's interop test descriptions,
// as a pooled-gzip raw-mode client: requests to be compressed are encoded
// from the pool (pooled_gzip::EncodeMessage) and go out flagged; responses
// arrive undecompressed (the channel sets "grpc.per_message_decompression"
// to 0), so the client checks each response's compressed flag itself before
// decoding it from the pool.

#ifndef POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_COMPRESSION_CASES_H_
#define POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_COMPRESSION_CASES_H_

#include <grpcpp/channel.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace pooled_gzip::interop {

// "client_compressed_unary", "server_compressed_unary",
// "client_compressed_streaming", "server_compressed_streaming".
const std::vector<std::string>& CompressionCaseNames();

// A channel to `target` as the cases need it.
std::shared_ptr<grpc::Channel> MakeRawModeChannel(const std::string& target);

// Runs one case; the error says which step failed and how.
absl::Status RunCompressionCase(const std::string& name,
                                const std::shared_ptr<grpc::Channel>& channel);

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_INTEROP_SERVICE_COMPRESSION_CASES_H_
