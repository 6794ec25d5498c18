#include "glue/built_builders.h"

#include <grpcpp/impl/server_builder_plugin.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

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
// and forgets it as the builder destroys the plugin.
class BuildWatcher final : public grpc::ServerBuilderPlugin {
 public:
  ~BuildWatcher() override {
    if (builder_ == nullptr) return;
    std::lock_guard<std::mutex> lock(Mutex());
    Built().erase(builder_);
  }
  std::string name() override { return "pooled_gzip_build_watcher"; }
  void UpdateServerBuilder(grpc::ServerBuilder* builder) override {
    builder_ = builder;
    std::lock_guard<std::mutex> lock(Mutex());
    Built().insert(builder);
  }
  void InitServer(grpc::ServerInitializer* /*si*/) override {}
  void Finish(grpc::ServerInitializer* /*si*/) override {}
  void ChangeArguments(const std::string& /*name*/, void* /*value*/) override {}

 private:
  const grpc::ServerBuilder* builder_ = nullptr;
};

std::unique_ptr<grpc::ServerBuilderPlugin> CreateBuildWatcher() {
  return std::make_unique<BuildWatcher>();
}

// At load, before the program constructs the builders it will set up: the
// mistake to catch is a first set-up call after BuildAndStart, so watching
// only from the first set-up call on would miss it.
[[maybe_unused]] const bool kWatching = [] {
  grpc::ServerBuilder::InternalAddPluginFactory(&CreateBuildWatcher);
  return true;
}();

}  // namespace

bool HasBuiltItsServer(const grpc::ServerBuilder& builder) {
  std::lock_guard<std::mutex> lock(Mutex());
  return Built().count(&builder) > 0;
}

}  // namespace internal
}  // namespace pooled_gzip
