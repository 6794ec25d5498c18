// Probes of the core codec's decompression cap from outside: typed gzip
// echoes (the count of refused messages is test_support::RefusedMessages).

#ifndef POOLED_GZIP_TEST_RELIABILITY_CAP_PROBES_H_
#define POOLED_GZIP_TEST_RELIABILITY_CAP_PROBES_H_

#include <grpcpp/channel.h>
#include <grpcpp/support/status.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "traffic_totals.h"

namespace pooled_gzip::reliability {

// A plain gRPC channel (not through pooled_gzip, so it notes no receive
// limit for the cap) to 127.0.0.1:`port`; `max_receive_bytes` unset keeps
// gRPC's default 4 MiB.
std::shared_ptr<grpc::Channel> PlainChannel(
    int port, std::optional<int> max_receive_bytes = std::nullopt);

// One typed Echo.Unary of a `size`-byte payload of words, sent
// gzip-compressed on `channel`; DATA_LOSS if the echo differs.
grpc::Status GzipEcho(const std::shared_ptr<grpc::Channel>& channel,
                      size_t size);

}  // namespace pooled_gzip::reliability

#endif  // POOLED_GZIP_TEST_RELIABILITY_CAP_PROBES_H_
