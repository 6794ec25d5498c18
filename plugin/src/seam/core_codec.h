// The core codec: pooled-gzip's definitions of gRPC's per-message codec
// functions (1.51 and 1.83 declare them alike), grpc_msg_compress and
// grpc_msg_decompress, which gRPC's compression filters call for every message
// of every call. While installed they run on pooled writers and readers with
// core's exact contract, so that core keeps making every decision; otherwise
// they forward to libgrpc's own definitions.

#ifndef POOLED_GZIP_SRC_SEAM_CORE_CODEC_H_
#define POOLED_GZIP_SRC_SEAM_CORE_CODEC_H_

#include <grpc/compression.h>
#include <grpc/slice_buffer.h>

#include <string>

namespace pooled_gzip {
namespace internal {

using MessageCodecFn = int (*)(grpc_compression_algorithm, grpc_slice_buffer*,
                               grpc_slice_buffer*);

// Core's contract (message_compress.cc, v1.51.1 and v1.83.0 alike), served
// from the pools.
// Compress: 1 with the stream appended to `output` iff it makes `output`
// strictly shorter than `input` (and the message is not skipped,
// Options::skip_incompressible); else 0 with refs to `input` appended.
// Decompress: 1 with the message appended iff `input` is exactly one valid
// stream inflating to at most the settings' cap (codec/settings.h); else 0,
// `output` as it was.
int PooledCompress(grpc_compression_algorithm algorithm,
                   grpc_slice_buffer* input, grpc_slice_buffer* output);
int PooledDecompress(grpc_compression_algorithm algorithm,
                     grpc_slice_buffer* input, grpc_slice_buffer* output);

// libgrpc's own definitions, found through libgrpc's handle; null if this
// process has none to find (gRPC linked statically, or a gRPC without the
// core codec).
struct StockCodec {
  MessageCodecFn compress = nullptr;
  MessageCodecFn decompress = nullptr;
};
const StockCodec& Stock();

// InstallCoreCodec() and CoreCodecActive() of pooled_gzip.h: the first
// call installs (once per process) and every call points the slots of
// objects loaded since.
bool ActivateCoreCodec();
bool IsCoreCodecActive();

// Why the core codec is or is not active, for logs and tests.
std::string CoreCodecExplanation();

// Whether InstallCoreCodec() would make the core codec active, without
// installing it: for set-up code that must decide on the fallback before
// it knows whether its channel or server installs the codec.
bool CoreCodecInstallable();

// Points the relocation slots of objects loaded since the last install or
// refresh at the core codec; a no-op unless the codec is active and
// something was loaded. Channel and server set-up call it.
void RefreshCoreCodec();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_CORE_CODEC_H_
