#include "message_codec.h"

#include <grpc/slice.h>

#include <optional>
#include <string>
#include <vector>

#include "codec/format.h"
#include "core_zlib_calls.h"
#include "glue/compression_algorithm.h"
#include "glue/slice_buffers.h"

namespace pooled_gzip::test_support {
namespace {

std::vector<std::string> SlicesOf(const grpc_slice_buffer& buffer) {
  const internal::SliceViews views = internal::ViewsOf(buffer);
  return {views.begin(), views.end()};
}

void AppendRefs(grpc_slice_buffer* input, grpc_slice_buffer* output) {
  for (size_t i = 0; i < input->count; ++i) {
    grpc_slice_buffer_add(output, grpc_slice_ref(input->slices[i]));
  }
}

void AppendCopy(const std::string& bytes, grpc_slice_buffer* output) {
  grpc_slice_buffer_add(
      output, grpc_slice_from_copied_buffer(bytes.data(), bytes.size()));
}

}  // namespace

std::string Flatten(const grpc_slice_buffer& buffer) {
  std::string flat;
  flat.reserve(buffer.length);
  for (absl::string_view slice : internal::ViewsOf(buffer)) {
    flat.append(slice.data(), slice.size());
  }
  return flat;
}

int ReferenceCompress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output) {
  const std::optional<internal::Format> format = internal::FormatOf(algorithm);
  std::optional<std::string> stream;
  if (format) stream = CoreCompress(RealZlib(), *format, SlicesOf(*input));
  if (!stream || output->length + stream->size() >= input->length) {
    AppendRefs(input, output);
    return 0;
  }
  AppendCopy(*stream, output);
  return 1;
}

int ReferenceDecompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (algorithm == GRPC_COMPRESS_NONE) {
    AppendRefs(input, output);
    return 1;
  }
  const std::optional<internal::Format> format = internal::FormatOf(algorithm);
  if (!format) return 0;
  const std::optional<std::string> message =
      CoreDecompress(RealZlib(), *format, SlicesOf(*input));
  if (!message) return 0;
  AppendCopy(*message, output);
  return 1;
}

}  // namespace pooled_gzip::test_support
