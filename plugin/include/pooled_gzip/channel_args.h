// Channel arguments read by pooled-gzip, on grpc::ChannelArguments passed to
// pooled_gzip::CreateChannel or added with ServerBuilder::AddChannelArgument.
// Per-channel knobs live here, as gRPC keeps its own in grpc_types.h;
// process-wide ones in options.h.
//
// Which messages get compressed is still decided by gRPC's own settings:
// ChannelArguments::SetCompressionAlgorithm, ServerBuilder::
// SetDefaultCompressionAlgorithm, and set_compression_algorithm on
// ClientContext or ServerContext.

#ifndef POOLED_GZIP_CHANNEL_ARGS_H_
#define POOLED_GZIP_CHANNEL_ARGS_H_

namespace pooled_gzip {

// Integer 0 or 1, default 1. 0 sets this channel or server up as if the
// plugin were not there: it does not install the core codec, and its
// receive limit does not count towards the derived
// decompression cap (options.h). The core codec is process-wide, though:
// once installed by anything else, it serves this channel or server too.
inline constexpr char kArgEnabled[] = "pooled_gzip.enabled";

// Process-wide settings (backend, level, caps) are not channel arguments:
// one channel's value would change every channel's. They have one entry
// point, pooled_gzip::Configure (options.h).

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_CHANNEL_ARGS_H_
