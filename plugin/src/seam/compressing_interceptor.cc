#include "seam/compressing_interceptor.h"

#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "codec/codec.h"
#include "seam/byte_buffer_access.h"
#include "seam/byte_buffer_codec.h"
#include "seam/compression_algorithm.h"
#include "seam/grpc_log.h"

namespace pooled_gzip {
namespace internal {

namespace {

using grpc::experimental::InterceptionHookPoints;

// Only the HTTP/2 transport has compression filters; the in-process one
// would carry compressed bytes to the application unmarked. Its calls show
// no socket address as their peer (1.51 says "unknown"), so the plugin
// compresses only for peers that name a socket.
bool PeerHasCompressionFilters(absl::string_view peer) {
  for (absl::string_view scheme :
       {"ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:"}) {
    if (absl::StartsWith(peer, scheme)) return true;
  }
  return false;
}

// On the server, core derives the algorithm from a compression level (per
// call, or the server default) using the client's grpc-accept-encoding,
// which applications never see; the plugin cannot know the outcome.
bool ServerCoreChoosesAlgorithm(const ChannelConfig& config,
                                const grpc::ServerContextBase& context) {
  return config.default_level_set || context.compression_level_set();
}

}  // namespace

CompressingInterceptor::CompressingInterceptor(
    std::shared_ptr<const ChannelConfig> config,
    grpc::ClientContext* client_context,
    grpc::ServerContextBase* server_context)
    : config_(std::move(config)),
      client_context_(client_context),
      server_context_(server_context) {}

void CompressingInterceptor::CancelCall() {
  if (client_context_ != nullptr) client_context_->TryCancel();
  if (server_context_ != nullptr) server_context_->TryCancel();
}

void CompressingInterceptor::Intercept(
    grpc::experimental::InterceptorBatchMethods* methods) {
  if (methods->QueryInterceptionHookPoint(
          InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
    const bool core_decides =
        server_context_ != nullptr &&
        (ServerCoreChoosesAlgorithm(*config_, *server_context_) ||
         !PeerHasCompressionFilters(server_context_->peer()));
    if (!core_decides) {
      format_ = DecideCallFormat(*config_, methods->GetSendInitialMetadata());
    }
  }
  // The hook point first: format_ is written while initial metadata goes
  // out, and gRPC may run this call's other hooks (receives, the server's
  // close notification) on another thread at the same time. Sends are
  // ordered, so only PRE_SEND_MESSAGE may read it.
  if (methods->QueryInterceptionHookPoint(
          InterceptionHookPoints::PRE_SEND_MESSAGE)) {
    grpc::ByteBuffer* message = methods->GetSerializedSendMessage();
    if (message != nullptr) PrepareMessage(message);
  }
  methods->Proceed();
}

void CompressingInterceptor::PrepareMessage(grpc::ByteBuffer* message) {
  const grpc_compression_algorithm carried = BufferCompression(*message);
  if (carried != GRPC_COMPRESS_NONE) {
    // A raw-mode buffer, compressed already. Its flag would go out under
    // the call's grpc-encoding, so unless the two agree, core gets it plain
    // and compresses it (or not) by the call's own algorithm.
    if (format_ && AlgorithmOf(*format_) == carried) return;
    if (absl::Status status = DecompressInPlace(message); !status.ok()) {
      // Sent as it is, it would go out flagged under another grpc-encoding
      // and fail at the peer with a misleading error, or not fail at all.
      // The call is cancelled before the message reaches core.
      POOLED_GZIP_LOG(
          kError,
          absl::StrCat("pooled_gzip: cannot decode an outgoing ",
                       carried == GRPC_COMPRESS_GZIP ? "gzip" : "deflate",
                       " message (", status.message(),
                       "); cancelling its call"));
      grpc::ByteBuffer empty;
      message->Swap(&empty);
      CancelCall();
    }
    return;
  }
  // Core checks its send limit against what it is handed: a message over
  // the limit must reach it uncompressed to be refused as without us.
  if (!format_ || !WithinSendLimit(*config_, message->Length())) return;
  absl::Status status = CompressInPlace(message, ConfiguredOptions(*format_));
  if (!status.ok()) {
    // Nothing is lost: core compresses the message itself instead.
    POOLED_GZIP_LOG(kError, absl::StrCat("pooled_gzip: ", status.message(),
                                         "; leaving the message to gRPC"));
  }
}

}  // namespace internal
}  // namespace pooled_gzip
