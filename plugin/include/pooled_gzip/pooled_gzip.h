// pooled-gzip: gzip and deflate message compression for gRPC C++ from
// recycled writer and reader contexts.
//
//   Server:  grpc::ServerBuilder builder;
//            builder.SetDefaultCompressionAlgorithm(GRPC_COMPRESS_GZIP);
//            pooled_gzip::EnableOnServer(builder);
//   Client:  grpc::ChannelArguments args;
//            args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
//            auto channel = pooled_gzip::CreateChannel(target, creds, args);
//
// Both install the core codec: gRPC core then compresses and decompresses
// every message of every call, typed methods included, through pooled
// contexts, and keeps making every decision itself (algorithm per call,
// set_no_compression, size limits). Where the core codec cannot be active
// (see InstallCoreCodec), the process says so once and runs as stock gRPC.

#ifndef POOLED_GZIP_POOLED_GZIP_H_
#define POOLED_GZIP_POOLED_GZIP_H_

#include <grpcpp/channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/channel_arguments.h>
#include <grpcpp/support/client_interceptor.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "pooled_gzip/channel_args.h"
#include "pooled_gzip/export.h"
#include "pooled_gzip/options.h"
#include "pooled_gzip/pool_stats.h"
#include "pooled_gzip/raw_mode.h"

namespace pooled_gzip {

using ClientInterceptorFactories = std::vector<
    std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>;

// Like grpc::CreateCustomChannel (with `interceptor_creators`, like
// CreateCustomChannelWithInterceptors), on the core codec unless the
// channel's pooled_gzip.enabled argument is 0.
// Errors: as gRPC's: never null, and a channel that cannot connect fails
// its calls. Where the core codec cannot be active, the channel still comes
// back and runs as stock gRPC; CoreCodecStatus() says why.
// Thread safety: callable from any thread, concurrently, also from a
// constructor run inside dlopen(). The first set-up call of the process
// installs the core codec (InstallCoreCodec), which takes a few
// milliseconds once.
POOLED_GZIP_EXPORT std::shared_ptr<grpc::Channel> CreateChannel(
    const std::string& target,
    const std::shared_ptr<grpc::ChannelCredentials>& creds,
    const grpc::ChannelArguments& args,
    ClientInterceptorFactories interceptor_creators = {});

// Sets `builder` up on the core codec, installed when the builder builds
// the server (unless its pooled_gzip.enabled argument is 0). Call before
// BuildAndStart: after it, the call cannot set up the server already built,
// and logs a warning saying so. Interceptors of yours are left alone.
// Errors: none returned; the server builds as without the library where the
// core codec cannot be active (CoreCodecStatus() says why).
// Thread safety: as ServerBuilder's own setters: one thread per builder at
// a time; different builders from any threads at once.
POOLED_GZIP_EXPORT void EnableOnServer(grpc::ServerBuilder& builder);

// Installs the core codec for the whole process (idempotent, thread-safe;
// the set-up calls above do it, EnableOnServer when the server is built)
// and returns CoreCodecActive(). For a shared libgrpc it serves the zlib
// calls of gRPC's codec, whatever the link or load order (also when this
// library is dlopen()ed after gRPC), and objects loaded later at the next
// set-up call. A static gRPC is routed here at link time by the static
// flavour's link options. Active means seen: gzip and deflate messages through
// gRPC's own codec were made by the pools, in each direction; a direction not
// seen is left to gRPC's own codec, as stock. It stays off where that cannot be
// seen (a static gRPC linked without the options, gRPC's zlib calls served by
// another copy of this library, a shared libgrpc on an architecture other than
// x86-64 and aarch64) and logs once why, and what to do, in gRPC's log (an
// error, printed at gRPC's default verbosity; a warning where another copy
// serves the process). The environment variable POOLED_GZIP_CORE_CODEC=0 keeps
// it off, which, like the codec being active, is logged as information (printed
// with GRPC_VERBOSITY=INFO). Linking the library without installing changes
// nothing.
// Errors: false where the codec is not active in both directions, with the
// reason in CoreCodecStatus() and the log.
// Thread safety: callable from any thread, concurrently, and idempotent;
// no caller waits for another (threads racing to the first install each
// conclude, and the first conclusion published is kept).
POOLED_GZIP_EXPORT bool InstallCoreCodec();

// Whether both directions are served (CoreCodecStatus().ok()). Installs
// nothing. Never fails; lock-free, callable from any thread.
POOLED_GZIP_EXPORT bool CoreCodecActive();

// One direction of gRPC's message codec, as the first InstallCoreCodec()
// concluded it.
enum class ServingState {
  kOff,      // not installed yet, or turned off by POOLED_GZIP_CORE_CODEC=0
  kServed,   // served by the pools, seen through gRPC's own codec
  kRefused,  // left to gRPC's own codec, as stock; CoreCodecStatus() says why
};

struct CoreCodecState {
  ServingState compress = ServingState::kOff;
  ServingState decompress = ServingState::kOff;
};

// What the log line says, for a program to read: GetCoreCodecState() each
// direction's state, CoreCodecStatus() OK when both are served (exactly
// when CoreCodecActive()), otherwise FAILED_PRECONDITION naming the
// directions not served and why, in the log line's words ("not installed"
// before the first install, "turned off by POOLED_GZIP_CORE_CODEC=0" for
// the opt-out); no other code. Neither installs anything.
// Thread safety: lock-free, callable from any thread. The state is set
// once per process, by the first install: from then on every answer is the
// same.
POOLED_GZIP_EXPORT CoreCodecState GetCoreCodecState();
POOLED_GZIP_EXPORT absl::Status CoreCodecStatus();

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_POOLED_GZIP_H_
