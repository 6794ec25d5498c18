// An object that imports gRPC's message codec itself, as a plugin built
// against libgrpc does: loading_importer_child loads and unloads it while
// the core codec is being installed, then calls it. Linked with
// -z now -z relro (its slots end up on a page the loader makes read-only
// once it has relocated them) and ten small dependencies (more for
// dlopen() to do between listing it and relocating it), and not with
// pooled_gzip. Its calls reach libgrpc's own codec functions, the only
// definitions (pooled_gzip defines none of them), whose zlib calls
// pooled_gzip serves through libgrpc's slots.

#include <grpc/compression.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>

#include <cstddef>
#include <cstdint>

// gRPC's own declarations (src/core/lib/compression/message_compress.h),
// with C++ linkage, as libgrpc defines and exports them (1.51 through
// 1.83).
int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output);
int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output);

extern "C" {
int ImporterDependency0(int value);
int ImporterDependency1(int value);
int ImporterDependency2(int value);
int ImporterDependency3(int value);
int ImporterDependency4(int value);
int ImporterDependency5(int value);
int ImporterDependency6(int value);
int ImporterDependency7(int value);
int ImporterDependency8(int value);
int ImporterDependency9(int value);
}

namespace {

constexpr size_t kMessageBytes = 4096;
constexpr char kText[] = "pooled gzip from a loading importer; ";

// Repetitive text: gzip makes it shorter, so compressing it succeeds.
char MessageByte(size_t i) { return kText[i % (sizeof(kText) - 1)]; }

bool IsMessage(const grpc_slice_buffer& buffer) {
  if (buffer.length != kMessageBytes) return false;
  size_t at = 0;
  for (size_t s = 0; s < buffer.count; ++s) {
    const grpc_slice& slice = buffer.slices[s];
    const uint8_t* bytes = GRPC_SLICE_START_PTR(slice);
    for (size_t i = 0; i < GRPC_SLICE_LENGTH(slice); ++i, ++at) {
      if (bytes[i] != static_cast<uint8_t>(MessageByte(at))) return false;
    }
  }
  return true;
}

}  // namespace

// No state of its own (no C++ statics, which could make it unloadable):
// every dlclose() unloads it.
extern "C" {

// Calls every dependency, so that the link keeps each one in NEEDED.
int ImporterDependencies() {
  return ImporterDependency0(0) + ImporterDependency1(0) +
         ImporterDependency2(0) + ImporterDependency3(0) +
         ImporterDependency4(0) + ImporterDependency5(0) +
         ImporterDependency6(0) + ImporterDependency7(0) +
         ImporterDependency8(0) + ImporterDependency9(0);
}

// gzip-compresses the message into `output` through grpc_msg_compress and
// returns what it returned (1: compressed).
int ImporterCompress(grpc_slice_buffer* output) {
  grpc_slice slice = grpc_slice_malloc(kMessageBytes);
  uint8_t* bytes = GRPC_SLICE_START_PTR(slice);
  for (size_t i = 0; i < kMessageBytes; ++i) {
    bytes[i] = static_cast<uint8_t>(MessageByte(i));
  }
  grpc_slice_buffer input;
  grpc_slice_buffer_init(&input);
  grpc_slice_buffer_add(&input, slice);
  const int result = grpc_msg_compress(GRPC_COMPRESS_GZIP, &input, output);
  grpc_slice_buffer_destroy(&input);
  return result;
}

// Decompresses gzip `input` through grpc_msg_decompress and returns what it
// returned (1: success); `*is_message` says whether the output was the
// message ImporterCompress compressed.
int ImporterDecompress(grpc_slice_buffer* input, int* is_message) {
  grpc_slice_buffer output;
  grpc_slice_buffer_init(&output);
  const int result = grpc_msg_decompress(GRPC_COMPRESS_GZIP, input, &output);
  *is_message = result == 1 && IsMessage(output) ? 1 : 0;
  grpc_slice_buffer_destroy(&output);
  return result;
}

}  // extern "C"
