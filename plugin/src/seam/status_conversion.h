// absl::Status to grpc::Status, at the gRPC boundary only.

#ifndef POOLED_GZIP_SRC_SEAM_STATUS_CONVERSION_H_
#define POOLED_GZIP_SRC_SEAM_STATUS_CONVERSION_H_

#include <grpcpp/support/status.h>

#include <string>

#include "absl/status/status.h"

namespace pooled_gzip {
namespace internal {

// The two enums share gRPC's canonical code numbers.
inline grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_STATUS_CONVERSION_H_
