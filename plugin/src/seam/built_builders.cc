#include "seam/built_builders.h"

#include <grpcpp/impl/server_builder_plugin.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "pool/held_across_fork.h"

namespace pooled_gzip {
namespace internal {
namespace {

// The builders alive that have started BuildAndStart.
class BuiltBuilders {
 public:
  static BuiltBuilders& Get() {
    // Never destroyed: builders of static storage outlive any other static.
    static auto* built = [] {
      auto* made = new BuiltBuilders;
      HoldAcrossFork<&Mutex>();
      return made;
    }();
    return *built;
  }
  void Add(const grpc::ServerBuilder* builder) {
    std::lock_guard<std::mutex> lock(Mutex());
    builders_.insert(builder);
  }
  void Remove(const grpc::ServerBuilder* builder) {
    std::lock_guard<std::mutex> lock(Mutex());
    builders_.erase(builder);
  }
  bool Contains(const grpc::ServerBuilder* builder) const {
    std::lock_guard<std::mutex> lock(Mutex());
    return builders_.count(builder) > 0;
  }

 private:
  static std::mutex& Mutex() {
    static auto* mutex = new std::mutex;
    return *mutex;
  }

  std::unordered_set<const grpc::ServerBuilder*> builders_;
};

// One per builder, owned by it: knows its builder from the moment
// BuildAndStart names it until the builder is destroyed, so no address is
// kept past its builder's life.
class BuildWatcher final : public grpc::ServerBuilderPlugin {
 public:
  ~BuildWatcher() override {
    if (builder_ != nullptr) BuiltBuilders::Get().Remove(builder_);
  }
  std::string name() override { return "pooled_gzip_build_watcher"; }
  void UpdateServerBuilder(grpc::ServerBuilder* builder) override {
    builder_ = builder;
    BuiltBuilders::Get().Add(builder);
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
  return BuiltBuilders::Get().Contains(&builder);
}

}  // namespace internal
}  // namespace pooled_gzip
