#include "seam/activation.h"

#include <dlfcn.h>
#include <grpc/grpc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "seam/bounded_decompress.h"
#include "seam/contract_probe.h"
#include "seam/grpc_log.h"
#include "seam/link_time_routing.h"
#include "seam/slot_rewrite.h"

namespace pooled_gzip {
namespace internal {
namespace {

constexpr char kCompressSymbol[] =
    "_Z17grpc_msg_compress26grpc_compression_algorithmP17grpc_slice_bufferS1_";
constexpr char kDecompressSymbol[] =
    "_Z19grpc_msg_decompress26grpc_compression_algorithmP17grpc_slice_"
    "bufferS1_";

// What the static flavour's pooled_gzip::pooled_gzip adds to a program's
// link (plugin/CMakeLists.txt, pooled_gzip.pc): named in the log of a
// program that links gRPC statically without them.
std::string LinkTimeRoutingOptions() {
  std::string options;
  for (const char* name : {kCompressSymbol, kDecompressSymbol}) {
    absl::StrAppend(&options, options.empty() ? "" : " ", "-Wl,--wrap=", name,
                    " -Wl,--undefined=", name, " -Wl,--undefined=__wrap_",
                    name);
  }
  return options;
}

std::atomic<bool> g_active{false};

// What activation computes once is published without a lock: a caller
// never waits for another thread that computes it, since that thread may
// be waiting inside the dynamic loader for a lock this caller holds (a
// constructor that sets up a channel, run inside dlopen). Racing threads
// each compute it (every step is idempotent); the first result published
// is the one kept.
template <typename T, typename Make>
const T& PublishOnce(std::atomic<const T*>& published, const Make& make) {
  if (const T* value = published.load(std::memory_order_acquire)) {
    return *value;
  }
  const T* made = new T(make());
  const T* expected = nullptr;
  if (published.compare_exchange_strong(expected, made,
                                        std::memory_order_acq_rel)) {
    return *made;
  }
  delete made;
  return *expected;
}

const void* OwnAddress() { return reinterpret_cast<const void*>(&Stock); }

std::vector<SlotTarget> Targets() {
  return {{kCompressSymbol, reinterpret_cast<void*>(&RoutedCompress)},
          {kDecompressSymbol, reinterpret_cast<void*>(&RoutedDecompress)}};
}

// gRPC linked into the same object as this library (a static gRPC).
bool GrpcLinkedIn() {
  return SameLoadedObject(reinterpret_cast<const void*>(&grpc_init),
                          OwnAddress());
}

// libgrpc's own definitions: dlsym on its handle finds them, whoever else
// defines the names.
MessageCodec SharedGrpcCodec() {
  MessageCodec codec;
  Dl_info grpc_info;
  if (GrpcLinkedIn() ||
      dladdr(reinterpret_cast<void*>(&grpc_init), &grpc_info) == 0) {
    return codec;
  }
  void* grpc = dlopen(grpc_info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (grpc == nullptr) return codec;
  codec.compress =
      reinterpret_cast<MessageCodecFn>(dlsym(grpc, kCompressSymbol));
  codec.decompress =
      reinterpret_cast<MessageCodecFn>(dlsym(grpc, kDecompressSymbol));
  dlclose(grpc);  // NOLOAD took a reference; libgrpc stays loaded
  for (MessageCodecFn* fn : {&codec.compress, &codec.decompress}) {
    if (*fn != nullptr &&
        SameLoadedObject(reinterpret_cast<const void*>(*fn), OwnAddress())) {
      *fn = nullptr;  // ours: forwarding there would recurse
    }
  }
  return codec;
}

// Makes the object holding this library permanent before any slot leads
// into it; the main program always is.
bool PinOwnObject() {
  if (InMainProgram(OwnAddress())) return true;
  Dl_info own;
  return dladdr(OwnAddress(), &own) != 0 &&
         dlopen(own.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) !=
             nullptr;
}

enum class Route { kNone, kLinkTime, kSlotRewrite };

// Which route can serve gRPC's calls, with gRPC admitted by the probe:
// decided once (gRPC's code does not change), before anything is written.
struct Plan {
  Route route = Route::kNone;
  std::string explanation;  // why not, or how
  // Off because the user turned it off, not because it cannot work.
  bool opted_out = false;
};

std::string Refused(absl::string_view difference) {
  return absl::StrCat(
      "the loaded gRPC's message codec does not keep the contract the core "
      "codec serves (",
      difference, ")");
}

Plan MakePlan() {
  if (const char* env = std::getenv("POOLED_GZIP_CORE_CODEC");
      env != nullptr && absl::string_view(env) == "0") {
    return {Route::kNone, "turned off by POOLED_GZIP_CORE_CODEC=0",
            /*opted_out=*/true};
  }
  if (LinkTimeRoutingInForce()) {
    if (auto difference = FirstContractDifference(Stock())) {
      return {Route::kNone, Refused(*difference)};
    }
    return {Route::kLinkTime,
            "gRPC is linked into the program, and its calls are routed to "
            "pooled_gzip at link time (--wrap)"};
  }
  if (GrpcLinkedIn()) {
    return {Route::kNone,
            absl::StrCat("gRPC is linked statically without pooled_gzip's "
                         "link-time routing; link the program with ",
                         LinkTimeRoutingOptions(),
                         " (pooled_gzip::pooled_gzip of a "
                         "BUILD_SHARED_LIBS=OFF install, and its "
                         "pooled_gzip.pc, add them)")};
  }
  if (!RelocationTypesKnown()) {
    return {Route::kNone,
            "this architecture's relocation types are not known to "
            "pooled_gzip (x86-64 and aarch64 only)"};
  }
  // gRPC's own definitions, found once: the calls forwarded before
  // admission use the same.
  const MessageCodec& stock = Stock();
  if (!stock.complete()) {
    return {Route::kNone,
            "the loaded libgrpc exports no grpc_msg_compress and "
            "grpc_msg_decompress"};
  }
  if (auto difference = FirstContractDifference(stock)) {
    return {Route::kNone, Refused(*difference)};
  }
  if (InspectSlots(Targets(), OwnAddress()).total == 0) {
    return {Route::kNone,
            "no object imports gRPC's message codec through a relocation "
            "slot: libgrpc binds its own calls (linked with "
            "-Bsymbolic-functions, as Ubuntu links every library, or "
            "-Bsymbolic or LTO). Use pooled_gzip's static flavour with gRPC's "
            "static archives instead: build pooled_gzip with "
            "-DBUILD_SHARED_LIBS=OFF and link libgrpc.a (docs/packaging.md, "
            "\"The static flavour (Ubuntu)\")"};
  }
  return {Route::kSlotRewrite, ""};
}

std::atomic<const Plan*> g_plan{nullptr};
const Plan& TheOnePlan() { return PublishOnce(g_plan, &MakePlan); }

// LoadedObjectsGeneration() read before the slots were last pointed.
std::atomic<uint64_t> g_pointed_generation{0};
// Lazy slots were pointed: a thread binding one at that moment may store
// gRPC's address after ours (seam/slot_rewrite.h), so the next set-up call
// reads them again (not the installing call itself, which would come too
// soon to see it).
std::atomic<bool> g_lazy_pointed{false};

struct InstallResult {
  bool active = false;
  std::string explanation;
  bool opted_out = false;  // Plan::opted_out
};

SlotReport PointEverySlot() {
  g_pointed_generation.store(LoadedObjectsGeneration(),
                             std::memory_order_relaxed);
  SlotReport slots = PointSlots(Targets(), OwnAddress());
  g_lazy_pointed.store(slots.lazy > 0, std::memory_order_relaxed);
  return slots;
}

InstallResult Install() {
  const Plan& plan = TheOnePlan();
  switch (plan.route) {
    case Route::kNone:
      return {false, plan.explanation, plan.opted_out};
    case Route::kLinkTime:
      return {true, plan.explanation};
    case Route::kSlotRewrite:
      break;
  }
  if (!PinOwnObject()) {
    return {false, "pooled_gzip's own object could not be made permanent"};
  }
  const SlotReport slots = PointEverySlot();
  if (!slots.AllToUs()) {
    return {false, absl::StrCat("gRPC's calls to its message codec could not "
                                "all be pointed at pooled_gzip (",
                                slots.detail, ")")};
  }
  std::string explanation = absl::StrCat(
      "gRPC's message codec is served by pooled_gzip (", slots.detail, ")");
  if (std::optional<std::string> bounded =
          BoundedDecompressExport(reinterpret_cast<const void*>(&grpc_init))) {
    absl::StrAppend(&explanation, "; the loaded gRPC also exports ", *bounded,
                    ", a bounded decompression of its own: received messages "
                    "it inflates there do not reach the pool (they stay "
                    "correct, and bounded by gRPC)");
  }
  return {true, std::move(explanation)};
}

std::atomic<const InstallResult*> g_installation{nullptr};

const InstallResult& Installation() {
  const InstallResult* before = g_installation.load(std::memory_order_acquire);
  const InstallResult& result = PublishOnce(g_installation, &Install);
  g_active.store(result.active, std::memory_order_release);
  if (before != nullptr) return result;
  // Logged once, by whichever call published first. A codec that cannot
  // be active is an error, printed at gRPC's default verbosity: the
  // process runs, but not as its set-up asked. Being active, or turned off
  // on purpose, is information (GRPC_VERBOSITY=INFO shows it).
  static std::atomic<bool> logged{false};
  if (logged.exchange(true)) return result;
  const std::string line = absl::StrCat(
      "pooled_gzip: core codec ", result.active ? "active" : "NOT active", ": ",
      result.explanation, "; ",
      result.active ? "typed and raw calls are pooled both ways"
                    : "outgoing messages use the interceptor path");
  if (result.active || result.opted_out) {
    POOLED_GZIP_LOG(kInfo, line);
  } else {
    POOLED_GZIP_LOG(kError, line);
  }
  return result;
}

}  // namespace

const MessageCodec& Stock() {
  static std::atomic<const MessageCodec*> stock{nullptr};
  return PublishOnce(stock, [] {
    return LinkTimeRoutingInForce() ? RealCodec() : SharedGrpcCodec();
  });
}

int RoutedCompress(grpc_compression_algorithm algorithm,
                   grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (!IsCoreCodecActive() && Stock().compress != nullptr) {
    return Stock().compress(algorithm, input, output);
  }
  return PooledCompress(algorithm, input, output);
}

int RoutedDecompress(grpc_compression_algorithm algorithm,
                     grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (!IsCoreCodecActive() && Stock().decompress != nullptr) {
    return Stock().decompress(algorithm, input, output);
  }
  return PooledDecompress(algorithm, input, output);
}

bool ActivateCoreCodec() {
  if (g_installation.load(std::memory_order_acquire) == nullptr) {
    return Installation().active;  // it has just pointed every slot
  }
  RefreshCoreCodec();
  return Installation().active;
}

bool IsCoreCodecActive() { return g_active.load(std::memory_order_acquire); }

std::string CoreCodecExplanation() { return Installation().explanation; }

bool CoreCodecInstallable() { return TheOnePlan().route != Route::kNone; }

void RefreshCoreCodec() {
  if (!IsCoreCodecActive() || TheOnePlan().route != Route::kSlotRewrite) {
    return;
  }
  if (LoadedObjectsGeneration() ==
          g_pointed_generation.load(std::memory_order_relaxed) &&
      !g_lazy_pointed.load(std::memory_order_relaxed)) {
    return;
  }
  const SlotReport slots = PointEverySlot();
  if (!slots.AllToUs() && slots.total > 0) {
    POOLED_GZIP_LOG(kError,
                    absl::StrCat("pooled_gzip: an object loaded after the "
                                 "core codec was installed keeps gRPC's own "
                                 "message codec: ",
                                 slots.detail));
  }
}

}  // namespace internal
}  // namespace pooled_gzip
