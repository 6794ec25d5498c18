#include "glue/server_limits.h"

#include <grpcpp/impl/server_builder_plugin.h>
#include <grpcpp/server_builder.h>

#include <memory>
#include <string>

#include "glue/call_config.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Notes the limit of a server not set up through pooled-gzip; one with
// pooled_gzip.enabled=0 asked not to count.
class LimitNoter final : public grpc::ServerBuilderPlugin {
 public:
  std::string name() override { return "pooled_gzip_limits"; }
  void InitServer(grpc::ServerInitializer* /*si*/) override {}
  void Finish(grpc::ServerInitializer* /*si*/) override {}
  void ChangeArguments(const std::string& /*name*/, void* /*value*/) override {}
  void UpdateChannelArguments(grpc::ChannelArguments* args) override {
    NoteReceiveLimitOf(ReadChannelConfig(args->c_channel_args()));
  }
};

std::unique_ptr<grpc::ServerBuilderPlugin> CreateLimitNoter() {
  return std::make_unique<LimitNoter>();
}

}  // namespace

void NoteLimitsOfEveryServer() {
  grpc::ServerBuilder::InternalAddPluginFactory(&CreateLimitNoter);
}

}  // namespace internal
}  // namespace pooled_gzip
