// Upstream gRPC is moving to decompression bounded by the call's receive
// limit (grpc_core::MessageDecompress, and a proposed
// grpc_core::DecompressMessageWithLimit): a gRPC whose filter calls such an
// entry point instead of grpc_msg_decompress still keeps the contract the
// probe checks, but its received messages would not reach the pool. Found
// by name among the exports of a shared libgrpc; activation says so in its
// log, and everything stays correct (compression is pooled, and gRPC's own
// decompression bounds itself).

#ifndef POOLED_GZIP_SRC_SEAM_BOUNDED_DECOMPRESS_H_
#define POOLED_GZIP_SRC_SEAM_BOUNDED_DECOMPRESS_H_

#include <optional>
#include <string>

namespace pooled_gzip {
namespace internal {

// The first such entry point the shared library holding `grpc_address`
// exports (its mangled name); nullopt if none, or if gRPC is not a shared
// library. Reads the loaded object's dynamic symbol table: never call it
// inside a dl_iterate_phdr callback (it pins the object with dlopen).
std::optional<std::string> BoundedDecompressExport(const void* grpc_address);

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_BOUNDED_DECOMPRESS_H_
