#include "seam/core_codec.h"

#include <grpc/slice.h>

#include <limits>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "codec/backend.h"
#include "codec/codec.h"
#include "codec/settings.h"
#include "seam/codec_log.h"
#include "seam/compression_algorithm.h"
#include "seam/grpc_log.h"
#include "seam/slice_buffers.h"

namespace pooled_gzip {
namespace internal {
namespace {

void CopyRefs(grpc_slice_buffer* input, grpc_slice_buffer* output) {
  for (size_t i = 0; i < input->count; ++i) {
    grpc_slice_buffer_add(output, grpc_slice_ref(input->slices[i]));
  }
}

void LogInvalidAlgorithm(grpc_compression_algorithm algorithm) {
  POOLED_GZIP_LOG(kError, absl::StrCat("invalid compression algorithm ",
                                       static_cast<int>(algorithm)));
}

// Core's compress contract around `deflate`, which makes one stream of
// the concatenated input into the sink, within `max_output_bytes`.
template <typename Deflate>
int CompressUnderContract(grpc_compression_algorithm algorithm,
                          grpc_slice_buffer* input, grpc_slice_buffer* output,
                          const Deflate& deflate) {
  const std::optional<Format> format = FormatOf(algorithm);
  if (!format) {
    if (algorithm != GRPC_COMPRESS_NONE) LogInvalidAlgorithm(algorithm);
    CopyRefs(input, output);
    return 0;
  }
  // Core counts what `output` already holds against the input's length.
  const size_t before = output->length;
  const size_t max_output_bytes =
      input->length > before ? input->length - before - 1 : 0;
  grpc_slice_buffer compressed;
  grpc_slice_buffer_init(&compressed);
  SliceBufferSink sink(&compressed);
  const absl::Status status =
      deflate(*format, ViewsOf(*input), max_output_bytes, &sink);
  if (status.ok()) {
    grpc_slice_buffer_move_into(&compressed, output);
  } else {
    CopyRefs(input, output);
  }
  grpc_slice_buffer_destroy(&compressed);
  return status.ok() ? 1 : 0;
}

// Core's decompress contract around `inflate`, which inflates exactly one
// stream of the concatenated input into the sink.
template <typename Inflate>
int DecompressUnderContract(grpc_compression_algorithm algorithm,
                            grpc_slice_buffer* input, grpc_slice_buffer* output,
                            const Inflate& inflate) {
  const std::optional<Format> format = FormatOf(algorithm);
  if (!format) {
    if (algorithm == GRPC_COMPRESS_NONE) {
      CopyRefs(input, output);
      return 1;
    }
    LogInvalidAlgorithm(algorithm);
    return 0;
  }
  // Core's loop never runs for a buffer of no slices and calls that an
  // empty message (one empty slice); no slices is not the same as empty
  // ones, which core reads as a truncated stream.
  if (input->count == 0) {
    grpc_slice_buffer_add_indexed(output, grpc_empty_slice());
    return 1;
  }
  grpc_slice_buffer inflated;
  grpc_slice_buffer_init(&inflated);
  SliceBufferSink sink(&inflated);
  const absl::Status status = inflate(*format, ViewsOf(*input), &sink);
  if (status.ok()) grpc_slice_buffer_move_into(&inflated, output);
  grpc_slice_buffer_destroy(&inflated);
  return status.ok() ? 1 : 0;
}

// zlib's default level, which core's deflateInit2 asks for.
constexpr int kZlibDefaultLevel = 6;

}  // namespace

int PooledCompress(grpc_compression_algorithm algorithm,
                   grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return CompressUnderContract(algorithm, input, output,
                               [](Format format, const SliceViews& views,
                                  size_t max_output_bytes, ChunkSink* sink) {
                                 CompressOptions options = ConfiguredOptions(
                                     format, Skipping::kAsConfigured);
                                 options.max_output_bytes = max_output_bytes;
                                 return CompressLogged(views, options, sink);
                               });
}

int PooledDecompress(grpc_compression_algorithm algorithm,
                     grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return DecompressUnderContract(
      algorithm, input, output,
      [](Format format, const SliceViews& views, ChunkSink* sink) {
        return DecompressLogged(views, format, CurrentDecompressSettings(),
                                sink);
      });
}

int ReferenceCompress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return CompressUnderContract(
      algorithm, input, output,
      [](Format format, const SliceViews& views, size_t max_output_bytes,
         ChunkSink* sink) {
        std::unique_ptr<Deflater> deflater =
            NewDeflater({Backend::kZlib, format, kZlibDefaultLevel});
        if (deflater == nullptr) {
          return absl::InternalError("cannot create a zlib compressor");
        }
        return deflater->Deflate(views, max_output_bytes, sink);
      });
}

int ReferenceDecompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return DecompressUnderContract(
      algorithm, input, output,
      [](Format format, const SliceViews& views, ChunkSink* sink) {
        std::unique_ptr<Inflater> inflater =
            NewInflater({Backend::kZlib, format});
        if (inflater == nullptr) {
          return absl::InternalError("cannot create a zlib decompressor");
        }
        return inflater->Inflate(views, std::numeric_limits<size_t>::max(),
                                 sink);
      });
}

}  // namespace internal
}  // namespace pooled_gzip
