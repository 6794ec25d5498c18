// The set-up calls of <pooled_gzip/pooled_gzip.h>. Channels and servers
// whose messages the core codec serves or, where it cannot be active, whose
// outgoing messages an interceptor compresses from the pools.
//
// Servers need their final arguments (receive limit, compression
// defaults), which ServerBuilder completes inside BuildAndStart, after every
// ServerBuilderOption has run. A ServerBuilderPlugin's
// UpdateChannelArguments runs after that, so an option installs one.

#include "pooled_gzip/pooled_gzip.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/impl/server_builder_option.h>
#include <grpcpp/impl/server_builder_plugin.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "seam/activation.h"
#include "seam/built_builders.h"
#include "seam/call_config.h"
#include "seam/compressing_interceptor.h"
#include "seam/grpc_log.h"
#include "seam/server_limits.h"

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
    if (!config_->enabled || internal::CoreCodecServes(/*compressing=*/true)) {
      return nullptr;
    }
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
        internal::CoreCodecServes(/*compressing=*/true)) {
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

// `caller` names the set-up call in the warning a late call logs: the
// builder no longer reads options, so nothing else would tell that the
// server it built is not set up.
std::shared_ptr<ConfigSlot> InstallConfigReaderOn(grpc::ServerBuilder& builder,
                                                  absl::string_view caller) {
  if (internal::HasBuiltItsServer(builder)) {
    POOLED_GZIP_LOG(
        kWarning,
        absl::StrCat("pooled_gzip: ", caller,
                     " was called on a grpc::ServerBuilder after its "
                     "BuildAndStart(): the server it built is not set up by "
                     "pooled_gzip. Call ",
                     caller, " before BuildAndStart()."));
  }
  auto slot = std::make_shared<ConfigSlot>();
  builder.SetOption(std::make_unique<InstallConfigReader>(slot));
  return slot;
}

}  // namespace

bool InstallCoreCodec() {
  const bool active = internal::ActivateCoreCodec();
  if (active) {
    // The core codec serves every server of the process from now on.
    static const bool noting = (internal::NoteLimitsOfEveryServer(), true);
    (void)noting;
  }
  return active;
}

bool CoreCodecActive() { return internal::IsCoreCodecActive(); }

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
  if (config->enabled && !internal::CoreCodecServes(/*compressing=*/true)) {
    interceptor_creators.push_back(std::make_unique<ClientFactory>(config));
  }
  if (interceptor_creators.empty()) {
    return grpc::CreateCustomChannel(target, creds, args);
  }
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      target, creds, args, std::move(interceptor_creators));
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
CreateServerInterceptorFactory(grpc::ServerBuilder& builder) {
  return std::make_unique<ServerFactory>(
      InstallConfigReaderOn(builder, "CreateServerInterceptorFactory"));
}

void EnableOnServer(grpc::ServerBuilder& builder,
                    ServerInterceptorFactories interceptor_creators) {
  auto slot = InstallConfigReaderOn(builder, "EnableOnServer");
  // The codec is installed in BuildAndStart, once the arguments say
  // whether this server is enabled. Until it has been seen serving gRPC's
  // compression, the fallback is added: it steps aside call by call once
  // the codec serves (ServerFactory asks), and compresses what the server
  // sends where the install does not.
  if (!internal::CoreCodecServes(/*compressing=*/true)) {
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
