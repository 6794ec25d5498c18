// A shared library that exports a bounded decompress entry point by the
// name upstream gRPC gives it, for bounded_decompress_test.

namespace grpc_core {

__attribute__((visibility("default"))) int MessageDecompress(int limit) {
  return limit;
}

}  // namespace grpc_core
