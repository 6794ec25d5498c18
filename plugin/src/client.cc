// Client side: a channel whose calls compress outgoing messages from the pool.

#include <grpcpp/create_channel.h>

#include <memory>
#include <utility>

#include "call_config.h"
#include "compressing_interceptor.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip {
namespace {

class ClientFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit ClientFactory(std::shared_ptr<const internal::ChannelConfig> config)
      : config_(std::move(config)) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* /*info*/) override {
    return new internal::CompressingInterceptor(config_,
                                                /*server_context=*/nullptr);
  }

 private:
  std::shared_ptr<const internal::ChannelConfig> config_;
};

}  // namespace

std::shared_ptr<grpc::Channel> CreateChannel(
    const std::string& target,
    const std::shared_ptr<grpc::ChannelCredentials>& creds,
    const grpc::ChannelArguments& args,
    ClientInterceptorFactories interceptor_creators) {
  auto config = std::make_shared<const internal::ChannelConfig>(
      internal::ReadChannelConfig(args.c_channel_args()));
  internal::ApplyPoolCaps(*config);
  if (config->enabled) {
    interceptor_creators.push_back(std::make_unique<ClientFactory>(config));
  }
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      target, creds, args, std::move(interceptor_creators));
}

}  // namespace pooled_gzip
