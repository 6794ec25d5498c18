// Channel arguments read by pooled-gzip, on grpc::ChannelArguments passed to
// pooled_gzip::CreateChannel or added with ServerBuilder::AddChannelArgument.
// Every knob lives in this one header, as gRPC keeps its own in grpc_types.h.
//
// Which messages get compressed is still decided by gRPC's own settings:
// ChannelArguments::SetCompressionAlgorithm, ServerBuilder::
// SetDefaultCompressionAlgorithm, and set_compression_algorithm on
// ClientContext or ServerContext. These keys only tune how.

#ifndef POOLED_GZIP_CHANNEL_ARGS_H_
#define POOLED_GZIP_CHANNEL_ARGS_H_

namespace pooled_gzip {

// Integer 0 or 1, default 1. 0 sets this channel or server up as if the
// plugin were not there: no core codec is installed for it and no
// interceptor added. Once another channel or server installed the core
// codec, it serves this one too (process-wide, at core's own level unless
// configured otherwise).
inline constexpr char kArgEnabled[] = "pooled_gzip.enabled";

// Integer. Process-wide, like the pool caps below: the same as
// pooled_gzip::Configure with this level (of the configured backend; -1 is
// its default, zlib's 6, which is also what core uses). The core codec has
// no per-channel context, so a level cannot be per channel.
inline constexpr char kArgLevel[] = "pooled_gzip.level";

// Integer >= 0. Process-wide: the pool is shared by every channel and server
// in the process, so a channel or server that sets this changes the cap for
// all of them (see pooled_gzip::SetPoolLimits). Idle contexts one thread
// keeps per kind of context; default 2.
inline constexpr char kArgMaxIdlePerThread[] =
    "pooled_gzip.max_idle_contexts_per_thread";

// Integer >= 0, in bytes. Process-wide, like the key above. Heap that idle
// contexts may hold across all threads; default 64 MiB. A context returned
// past the cap is freed instead of pooled.
inline constexpr char kArgMaxPooledBytes[] = "pooled_gzip.max_pooled_bytes";

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_CHANNEL_ARGS_H_
