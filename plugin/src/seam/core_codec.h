// The core codec: gRPC's per-message codec contract, served from the pools.
// gRPC core (1.51 through 1.83 declare it alike, in
// src/core/lib/compression/message_compress.h) compresses and inflates
// every message of every call through two functions of this type; how its
// calls reach these is activation's business (seam/activation.h).

#ifndef POOLED_GZIP_SRC_SEAM_CORE_CODEC_H_
#define POOLED_GZIP_SRC_SEAM_CORE_CODEC_H_

#include <grpc/compression.h>
#include <grpc/slice_buffer.h>

namespace pooled_gzip {
namespace internal {

// grpc_msg_compress and grpc_msg_decompress.
using MessageCodecFn = int (*)(grpc_compression_algorithm, grpc_slice_buffer*,
                               grpc_slice_buffer*);

// A pair of them: gRPC's own, or ours.
struct MessageCodec {
  MessageCodecFn compress = nullptr;
  MessageCodecFn decompress = nullptr;
  bool complete() const { return compress != nullptr && decompress != nullptr; }
};

// Core's contract (message_compress.cc), served from the pools.
// Compress: 1 with the stream appended to `output` iff it makes `output`
// strictly shorter than `input` (and the message is not skipped,
// Options::skip_incompressible); else 0 with refs to `input` appended. NONE
// (and any algorithm but gzip and deflate): 0 with refs appended.
// Decompress: 1 with the message appended iff `input` is exactly one valid
// stream inflating to at most the settings' cap (codec/settings.h); else 0,
// `output` as it was. NONE: 1 with refs appended; no slices at all: 1 with
// one empty slice (core's loop never runs).
int PooledCompress(grpc_compression_algorithm algorithm,
                   grpc_slice_buffer* input, grpc_slice_buffer* output);
int PooledDecompress(grpc_compression_algorithm algorithm,
                     grpc_slice_buffer* input, grpc_slice_buffer* output);
inline constexpr MessageCodec kPooledCodec{&PooledCompress, &PooledDecompress};

// The same contract on fresh zlib contexts at zlib's default level, no cap,
// neither pooled nor counted: where core's own functions must give the
// same answers byte for byte (seam/contract_probe.h).
int ReferenceCompress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output);
int ReferenceDecompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output);
inline constexpr MessageCodec kReferenceCodec{&ReferenceCompress,
                                              &ReferenceDecompress};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_CORE_CODEC_H_
