// Client side: channels whose messages the core codec serves, or, where it
// cannot be active, whose outgoing messages an interceptor compresses.

#include <grpcpp/create_channel.h>

#include <memory>
#include <utility>

#include "grpc/call_config.h"
#include "grpc/compressing_interceptor.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip {
namespace {

class ClientFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit ClientFactory(std::shared_ptr<const internal::ChannelConfig> config)
      : config_(std::move(config)) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* info) override {
    // The core codec serves every call; an interceptor would only pay.
    if (!config_->enabled || CoreCodecActive()) return nullptr;
    return new internal::CompressingInterceptor(config_, info->client_context(),
                                                /*server_context=*/nullptr);
  }

 private:
  std::shared_ptr<const internal::ChannelConfig> config_;
};

std::shared_ptr<const internal::ChannelConfig> SetUp(
    const grpc::ChannelArguments& args) {
  auto config = std::make_shared<const internal::ChannelConfig>(
      internal::ReadChannelConfig(args.c_channel_args()));
  internal::NoteReceiveLimitOf(*config);
  if (config->enabled) InstallCoreCodec();
  return config;
}

}  // namespace

std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>
CreateClientInterceptorFactory(const grpc::ChannelArguments& args) {
  return std::make_unique<ClientFactory>(SetUp(args));
}

std::shared_ptr<grpc::Channel> CreateChannel(
    const std::string& target,
    const std::shared_ptr<grpc::ChannelCredentials>& creds,
    const grpc::ChannelArguments& args,
    ClientInterceptorFactories interceptor_creators) {
  auto config = SetUp(args);
  if (config->enabled && !CoreCodecActive()) {
    interceptor_creators.push_back(std::make_unique<ClientFactory>(config));
  }
  if (interceptor_creators.empty()) {
    return grpc::CreateCustomChannel(target, creds, args);
  }
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      target, creds, args, std::move(interceptor_creators));
}

}  // namespace pooled_gzip
