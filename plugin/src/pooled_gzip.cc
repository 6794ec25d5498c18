// The set-up calls of <pooled_gzip/pooled_gzip.h>: each reads what the
// channel or server's arguments say to the plugin and, where it is
// enabled, installs the core codec for the process.
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

#include "glue/call_config.h"
#include "glue/grpc_log.h"
#include "glue/server_builders.h"
#include "seam/activation.h"
#include "seam/loaded_objects.h"

namespace pooled_gzip {
namespace {

// Notes the receive limit of an enabled channel or server, and installs.
void SetUp(const grpc_channel_args& args) {
  const internal::ChannelConfig config = internal::ReadChannelConfig(args);
  internal::NoteReceiveLimitOf(config);
  if (config.enabled) InstallCoreCodec();
}

class ConfigReader final : public grpc::ServerBuilderPlugin {
 public:
  std::string name() override { return "pooled_gzip"; }
  void InitServer(grpc::ServerInitializer* /*si*/) override {}
  void Finish(grpc::ServerInitializer* /*si*/) override {}
  void ChangeArguments(const std::string& /*name*/, void* /*value*/) override {}

  // The server's arguments are final here, and it takes no call yet.
  void UpdateChannelArguments(grpc::ChannelArguments* args) override {
    SetUp(args->c_channel_args());
  }
};

class InstallConfigReader final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>*
                         plugins) override {
    plugins->push_back(std::make_unique<ConfigReader>());
  }
};

}  // namespace

namespace {

// At load, before the program constructs the builders it will set up (a
// first set-up call after BuildAndStart is the mistake to catch, and every
// server's limit counts once the codec is served), and only once this
// object is permanent: gRPC calls the factory for as long as it runs.
[[maybe_unused]] const bool kWatchingServerBuilders = [] {
  if (!internal::PinObjectContaining(
          reinterpret_cast<const void*>(&EnableOnServer))) {
    return false;
  }
  internal::WatchServerBuilders();
  return true;
}();

}  // namespace

bool InstallCoreCodec() { return internal::InstallCoreCodec(); }

bool CoreCodecActive() { return internal::CoreCodecActive(); }

CoreCodecState GetCoreCodecState() { return internal::CurrentState(); }

absl::Status CoreCodecStatus() { return internal::ActivationStatus(); }

std::shared_ptr<grpc::Channel> CreateChannel(
    const std::string& target,
    const std::shared_ptr<grpc::ChannelCredentials>& creds,
    const grpc::ChannelArguments& args,
    ClientInterceptorFactories interceptor_creators) {
  SetUp(args.c_channel_args());
  if (interceptor_creators.empty()) {
    return grpc::CreateCustomChannel(target, creds, args);
  }
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      target, creds, args, std::move(interceptor_creators));
}

void EnableOnServer(grpc::ServerBuilder& builder) {
  // The builder no longer reads options once it has built its server, so
  // nothing else would tell that the server is not set up.
  if (internal::HasBuiltItsServer(builder)) {
    POOLED_GZIP_LOG(
        kWarning,
        "pooled_gzip: EnableOnServer was called on a grpc::ServerBuilder "
        "after its BuildAndStart(): the server it built is not set up by "
        "pooled_gzip. Call EnableOnServer before BuildAndStart().");
  }
  builder.SetOption(std::make_unique<InstallConfigReader>());
}

}  // namespace pooled_gzip
