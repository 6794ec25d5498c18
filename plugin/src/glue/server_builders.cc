#include "glue/server_builders.h"

#include <grpcpp/impl/server_builder_plugin.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "glue/call_config.h"
#include "pool/held_across_fork.h"

namespace pooled_gzip {
namespace internal {
namespace {

std::mutex& Mutex() { return MutexHeldAcrossFork<&Mutex>(); }

// The builders alive that have started BuildAndStart; guarded by Mutex().
// Never destroyed: builders of static storage outlive any other static.
std::unordered_set<const grpc::ServerBuilder*>& Built() {
  static auto* built = new std::unordered_set<const grpc::ServerBuilder*>;
  return *built;
}

// One per builder, owned by it: knows its builder from BuildAndStart on,
// and forgets it as the builder destroys the plugin; notes the server's
// receive limit (one with pooled_gzip.enabled=0 asked not to count).
class ServerWatcher final : public grpc::ServerBuilderPlugin {
 public:
  ~ServerWatcher() override {
    if (builder_ == nullptr) return;
    std::lock_guard<std::mutex> lock(Mutex());
    Built().erase(builder_);
  }
  std::string name() override { return "pooled_gzip_server_watcher"; }
  void UpdateServerBuilder(grpc::ServerBuilder* builder) override {
    builder_ = builder;
    std::lock_guard<std::mutex> lock(Mutex());
    Built().insert(builder);
  }
  void UpdateChannelArguments(grpc::ChannelArguments* args) override {
    NoteReceiveLimitOf(ReadChannelConfig(args->c_channel_args()));
  }
  void InitServer(grpc::ServerInitializer* /*si*/) override {}
  void Finish(grpc::ServerInitializer* /*si*/) override {}
  void ChangeArguments(const std::string& /*name*/, void* /*value*/) override {}

 private:
  const grpc::ServerBuilder* builder_ = nullptr;
};

std::unique_ptr<grpc::ServerBuilderPlugin> CreateServerWatcher() {
  return std::make_unique<ServerWatcher>();
}

}  // namespace

void WatchServerBuilders() {
  grpc::ServerBuilder::InternalAddPluginFactory(&CreateServerWatcher);
}

bool HasBuiltItsServer(const grpc::ServerBuilder& builder) {
  std::lock_guard<std::mutex> lock(Mutex());
  return Built().count(&builder) > 0;
}

}  // namespace internal
}  // namespace pooled_gzip
