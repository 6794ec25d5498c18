// The interceptor that compresses outgoing messages from the pool, shared by
// the client and server sides.

#ifndef POOLED_GZIP_SRC_SEAM_COMPRESSING_INTERCEPTOR_H_
#define POOLED_GZIP_SRC_SEAM_COMPRESSING_INTERCEPTOR_H_

#include <grpcpp/client_context.h>
#include <grpcpp/server_context.h>
#include <grpcpp/support/interceptor.h>

#include <memory>
#include <optional>

#include "seam/call_config.h"

namespace pooled_gzip {
namespace internal {

class CompressingInterceptor final : public grpc::experimental::Interceptor {
 public:
  // One of the contexts is null: the server's on the client side, the
  // client's on the server side.
  CompressingInterceptor(std::shared_ptr<const ChannelConfig> config,
                         grpc::ClientContext* client_context,
                         grpc::ServerContextBase* server_context);

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override;

 private:
  // Compresses, decodes or leaves one outgoing message, per the call.
  void PrepareMessage(grpc::ByteBuffer* message);
  void CancelCall();

  std::shared_ptr<const ChannelConfig> config_;
  grpc::ClientContext* client_context_;
  grpc::ServerContextBase* server_context_;
  // Set once, when initial metadata goes out; nullopt leaves messages to core.
  std::optional<Format> format_;
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_SEAM_COMPRESSING_INTERCEPTOR_H_
