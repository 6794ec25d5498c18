// Server side: the core codec serves every message, or, where it cannot be
// active, an interceptor compresses responses from the pool.
//
// Both need the server's final arguments (receive limit, compression
// defaults), which ServerBuilder completes inside BuildAndStart, after every
// ServerBuilderOption has run. A ServerBuilderPlugin's
// UpdateChannelArguments runs after that, so an option installs one.

#include <grpcpp/impl/server_builder_option.h>
#include <grpcpp/impl/server_builder_plugin.h>

#include <memory>
#include <utility>

#include "grpc/call_config.h"
#include "grpc/compressing_interceptor.h"
#include "grpc/core_codec.h"
#include "grpc/server_limits.h"
#include "pooled_gzip/pooled_gzip.h"

namespace pooled_gzip {
namespace {

// Filled once in BuildAndStart, before the server takes its first call.
struct ConfigSlot {
  std::shared_ptr<const internal::ChannelConfig> config;
};

class ServerFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit ServerFactory(std::shared_ptr<const ConfigSlot> slot)
      : slot_(std::move(slot)) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    if (slot_->config == nullptr || !slot_->config->enabled ||
        CoreCodecActive()) {
      return nullptr;
    }
    return new internal::CompressingInterceptor(
        slot_->config, /*client_context=*/nullptr, info->server_context());
  }

 private:
  std::shared_ptr<const ConfigSlot> slot_;
};

class ConfigReader final : public grpc::ServerBuilderPlugin {
 public:
  explicit ConfigReader(std::shared_ptr<ConfigSlot> slot)
      : slot_(std::move(slot)) {}

  std::string name() override { return "pooled_gzip"; }
  void InitServer(grpc::ServerInitializer* /*si*/) override {}
  void Finish(grpc::ServerInitializer* /*si*/) override {}
  void ChangeArguments(const std::string& /*name*/, void* /*value*/) override {}

  // The server's arguments are final here, and it takes no call yet.
  void UpdateChannelArguments(grpc::ChannelArguments* args) override {
    auto config = std::make_shared<const internal::ChannelConfig>(
        internal::ReadChannelConfig(args->c_channel_args()));
    internal::NoteReceiveLimitOf(*config);
    if (config->enabled) InstallCoreCodec();
    slot_->config = std::move(config);
  }

 private:
  std::shared_ptr<ConfigSlot> slot_;
};

class InstallConfigReader final : public grpc::ServerBuilderOption {
 public:
  explicit InstallConfigReader(std::shared_ptr<ConfigSlot> slot)
      : slot_(std::move(slot)) {}

  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>*
                         plugins) override {
    plugins->push_back(std::make_unique<ConfigReader>(slot_));
  }

 private:
  std::shared_ptr<ConfigSlot> slot_;
};

// Notes the limit of a server not set up through pooled-gzip; one with
// pooled_gzip.enabled=0 asked not to count.
class LimitNoter final : public grpc::ServerBuilderPlugin {
 public:
  std::string name() override { return "pooled_gzip_limits"; }
  void InitServer(grpc::ServerInitializer* /*si*/) override {}
  void Finish(grpc::ServerInitializer* /*si*/) override {}
  void ChangeArguments(const std::string& /*name*/, void* /*value*/) override {}
  void UpdateChannelArguments(grpc::ChannelArguments* args) override {
    internal::NoteReceiveLimitOf(
        internal::ReadChannelConfig(args->c_channel_args()));
  }
};

std::unique_ptr<grpc::ServerBuilderPlugin> CreateLimitNoter() {
  return std::make_unique<LimitNoter>();
}

std::shared_ptr<ConfigSlot> InstallConfigReaderOn(
    grpc::ServerBuilder& builder) {
  auto slot = std::make_shared<ConfigSlot>();
  builder.SetOption(std::make_unique<InstallConfigReader>(slot));
  return slot;
}

}  // namespace

namespace internal {

void NoteLimitsOfEveryServer() {
  grpc::ServerBuilder::InternalAddPluginFactory(&CreateLimitNoter);
}

}  // namespace internal

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
CreateServerInterceptorFactory(grpc::ServerBuilder& builder) {
  return std::make_unique<ServerFactory>(InstallConfigReaderOn(builder));
}

void EnableOnServer(grpc::ServerBuilder& builder,
                    ServerInterceptorFactories interceptor_creators) {
  auto slot = InstallConfigReaderOn(builder);
  // The codec is installed in BuildAndStart, once the arguments say
  // whether this server is enabled; the fallback is needed only where it
  // cannot be.
  if (!internal::CoreCodecInstallable()) {
    interceptor_creators.push_back(std::make_unique<ServerFactory>(slot));
  }
  // Left alone when there is nothing to add, so that a list the caller set
  // before is kept.
  if (!interceptor_creators.empty()) {
    builder.experimental().SetInterceptorCreators(
        std::move(interceptor_creators));
  }
}

}  // namespace pooled_gzip
