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
#include "codec/traffic.h"
#include "seam/codec_log.h"
#include "seam/contract_probe.h"
#include "seam/grpc_log.h"
#include "seam/link_time_routing.h"
#include "seam/other_grpc.h"
#include "seam/real_zlib.h"
#include "seam/slot_rewrite.h"
#include "seam/zlib_seam.h"

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
  for (const ZlibEntry& entry : ZlibEntries()) {
    absl::StrAppend(&options, " -Wl,--wrap=", entry.name);
  }
  return options;
}

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

std::vector<SlotTarget> CodecTargets() {
  return {{kCompressSymbol, reinterpret_cast<void*>(&RoutedCompress),
           reinterpret_cast<const void*>(Stock().compress)},
          {kDecompressSymbol, reinterpret_cast<void*>(&RoutedDecompress),
           reinterpret_cast<const void*>(Stock().decompress)}};
}

// libgrpc's zlib imports, in the order ZlibEntries() gives them.
std::vector<SlotTarget> ZlibTargets() {
  std::vector<SlotTarget> targets;
  for (const ZlibEntry& entry : ZlibEntries()) {
    targets.push_back({entry.name, entry.served, entry.zlib});
  }
  return targets;
}

// An address inside the shared libgrpc this library uses.
const void* GrpcAddress() { return reinterpret_cast<const void*>(&grpc_init); }

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

enum class Route { kNone, kLinkTime, kZlibImports };

// Which route can serve gRPC's calls, with gRPC admitted by the probe:
// decided once (gRPC's code does not change), before anything is written.
struct Plan {
  Route route = Route::kNone;
  std::string explanation;  // why not, or how
  // Off because the user turned it off, not because it cannot work.
  bool opted_out = false;
  // Why gRPC's codec functions are not served directly as well as its
  // zlib calls; nullopt if they are.
  std::optional<std::string> codec_functions_refused;
  // kZlibImports: the slots another object already serves, if any.
  std::optional<std::string> served_elsewhere;
};

Plan NotServed(std::string why, bool opted_out = false) {
  Plan plan;
  plan.explanation = std::move(why);
  plan.opted_out = opted_out;
  return plan;
}

std::string Refused(absl::string_view difference) {
  return absl::StrCat(
      "the loaded gRPC's message codec does not keep the contract the core "
      "codec serves (",
      difference, ")");
}

// Whether gRPC's codec functions may be served directly as well: gRPC's
// codec answers the probes as ours (and a shared libgrpc calls them through
// slots). Otherwise the reason, for the log.
std::optional<std::string> CodecFunctionsRefused(bool linked_in) {
  if (!linked_in && InspectSlots(CodecTargets(), OwnAddress()).total == 0) {
    return "libgrpc binds its own calls to them";
  }
  if (auto difference = FirstContractDifference(Stock())) {
    return Refused(*difference);
  }
  return std::nullopt;
}

// A static gRPC and a shared libgrpc in one process, both named.
std::string TwoGrpcs(const void* linked_in, const std::string& other) {
  std::string where = "the program";
  Dl_info info;
  if (!InMainProgram(linked_in) && dladdr(linked_in, &info) != 0 &&
      info.dli_fname != nullptr) {
    where = info.dli_fname;
  }
  return absl::StrCat(
      "two gRPC cores in one process: gRPC is linked statically into ", where,
      ", and ", other,
      " is loaded too (a library linked against the shared gRPC brings it "
      "in: in CMake, a gRPC::* target left on its shared library, such as "
      "gRPC::grpc++_reflection; pooled_gzip_use_grpc_archives() points "
      "them all at their archives). Link one gRPC: with two, gRPC itself "
      "may hang (in ServerBuilder::BuildAndStart), and no codec is served");
}

Plan MakePlan() {
  if (const char* env = std::getenv("POOLED_GZIP_CORE_CODEC");
      env != nullptr && absl::string_view(env) == "0") {
    return NotServed("turned off by POOLED_GZIP_CORE_CODEC=0",
                     /*opted_out=*/true);
  }
  if (LinkTimeRoutingInForce() || GrpcLinkedIn()) {
    const void* linked_in = reinterpret_cast<const void*>(&grpc_init);
    if (std::optional<std::string> other = OtherGrpcBeside(linked_in)) {
      return NotServed(TwoGrpcs(linked_in, *other));
    }
  }
  if (LinkTimeRoutingInForce() && ZlibRoutedAtLinkTime()) {
    Plan plan;
    plan.route = Route::kLinkTime;
    plan.codec_functions_refused = CodecFunctionsRefused(/*linked_in=*/true);
    return plan;
  }
  if (GrpcLinkedIn()) {
    return NotServed(
        absl::StrCat("gRPC is linked statically without pooled_gzip's "
                     "link-time routing; link the program with ",
                     LinkTimeRoutingOptions(),
                     " (pooled_gzip::pooled_gzip of a "
                     "BUILD_SHARED_LIBS=OFF install, and its "
                     "pooled_gzip.pc, add them)"));
  }
  if (!RelocationTypesKnown()) {
    return NotServed(
        "this architecture's relocation types are not known to "
        "pooled_gzip (x86-64 and aarch64 only)");
  }
  // gRPC's own entry points, through which the installation sees its
  // code served.
  if (!Stock().complete()) {
    return NotServed(
        "the loaded libgrpc exports no grpc_msg_compress and "
        "grpc_msg_decompress to see its message codec served through");
  }
  const SlotReport zlib_slots =
      InspectSlots(ZlibTargets(), OwnAddress(), GrpcAddress());
  if (zlib_slots.total == 0) {
    return NotServed(
        "the loaded libgrpc does not import zlib's entry points (zlib is "
        "linked into it)");
  }
  Plan plan;
  plan.route = Route::kZlibImports;
  if (zlib_slots.taken > 0) {
    // Not probed either: the probe's messages would count in the
    // statistics of the copy that serves them.
    plan.served_elsewhere = zlib_slots.detail;
    return plan;
  }
  plan.codec_functions_refused = CodecFunctionsRefused(/*linked_in=*/false);
  return plan;
}

std::atomic<const Plan*> g_plan{nullptr};
const Plan& TheOnePlan() { return PublishOnce(g_plan, &MakePlan); }

// LoadedObjectsGeneration() read before the slots were last pointed.
std::atomic<uint64_t> g_pointed_generation{0};
// Lazy slots were pointed: a thread binding one at that moment may store
// zlib's or gRPC's address after ours (seam/slot_rewrite.h), so the next
// set-up call reads them again (not the installing call itself, which
// would come too soon to see it).
std::atomic<bool> g_lazy_pointed{false};

struct InstallResult {
  // Each direction of gRPC's own code was seen served by the pools.
  bool compress = false;
  bool decompress = false;
  // gRPC's codec functions lead to the core codec (slots or --wrap), and
  // it serves them in the directions seen.
  bool codec_functions = false;
  std::string explanation;
  bool opted_out = false;  // Plan::opted_out
  // Another object (another copy of the library) serves gRPC's codec.
  bool served_elsewhere = false;
  bool active() const { return compress && decompress; }
};

// libgrpc's zlib slots, then its codec's own where it has them and keeps
// the contract: one store each, and the second list only saves core's
// 1 KiB output slices on the way.
SlotReport PointEverySlot(bool codec_slots) {
  g_pointed_generation.store(LoadedObjectsGeneration(),
                             std::memory_order_relaxed);
  const std::vector<SlotTarget> zlib = ZlibTargets();
  SlotReport slots = PointSlots({zlib.begin(), zlib.begin() + kPassingEntries},
                                OwnAddress(), GrpcAddress());
  slots.Add(PointSlots({zlib.begin() + kPassingEntries, zlib.end()},
                       OwnAddress(), GrpcAddress()));
  if (codec_slots) slots.Add(PointSlots(CodecTargets(), OwnAddress()));
  g_lazy_pointed.store(slots.lazy > 0, std::memory_order_relaxed);
  return slots;
}

// Sees gRPC's own message codec served, each direction apart: a message
// through libgrpc's exported entry points on this thread must be made by
// the pools (seam/zlib_seam.h counts the streams it serves per thread).
InstallResult Observe(const MessageCodec& grpc) {
  static constexpr absl::string_view kMessage =
      "pooled_gzip sees gRPC's own message codec served: pooled_gzip sees "
      "gRPC's own message codec served: pooled_gzip sees gRPC's own codec";
  InstallResult seen;
  const UncountedScope not_traffic;
  const RecognizingGrpcStreams learning;
  grpc_slice_buffer message;
  grpc_slice_buffer compressed;
  grpc_slice_buffer inflated;
  for (grpc_slice_buffer* buffer : {&message, &compressed, &inflated}) {
    grpc_slice_buffer_init(buffer);
  }
  grpc_slice_buffer_add(&message, grpc_slice_from_static_buffer(
                                      kMessage.data(), kMessage.size()));
  const uint64_t made = StreamsServedOnThisThread(/*compressing=*/true);
  seen.compress =
      grpc.compress(GRPC_COMPRESS_GZIP, &message, &compressed) == 1 &&
      StreamsServedOnThisThread(/*compressing=*/true) == made + 1;
  const uint64_t inflated_before =
      StreamsServedOnThisThread(/*compressing=*/false);
  seen.decompress =
      seen.compress &&
      grpc.decompress(GRPC_COMPRESS_GZIP, &compressed, &inflated) == 1 &&
      StreamsServedOnThisThread(/*compressing=*/false) == inflated_before + 1 &&
      inflated.length == kMessage.size();
  for (grpc_slice_buffer* buffer : {&message, &compressed, &inflated}) {
    grpc_slice_buffer_destroy(buffer);
  }
  return seen;
}

std::string Directions(const InstallResult& seen) {
  if (seen.active()) return "both ways";
  if (seen.compress) return "compressing only";
  if (seen.decompress) return "decompressing only";
  return "in neither direction";
}

// The explanation's tail: gRPC's codec functions served as well, or why
// not.
std::string CodecFunctions(const Plan& plan, absl::string_view how) {
  if (plan.codec_functions_refused) {
    return absl::StrCat("; gRPC's codec functions are left to it: ",
                        *plan.codec_functions_refused);
  }
  return absl::StrCat("; its codec functions are served directly (", how, ")");
}

// Another object serves libgrpc's zlib calls (`detail` names the slots):
// this copy takes nothing and sends nothing through them.
InstallResult ServedElsewhere(absl::string_view detail) {
  InstallResult result;
  result.served_elsewhere = true;
  result.explanation = absl::StrCat(
      "gRPC's message codec is already served by another object (", detail,
      "), such as another copy of pooled_gzip; this copy leaves it with its "
      "options, cap and statistics, and its own channels and servers "
      "compress what they send through the interceptor path");
  return result;
}

InstallResult InstallLinkedIn(const Plan& plan) {
  InstallResult result = Observe(Stock());
  result.codec_functions = !plan.codec_functions_refused.has_value();
  result.explanation = absl::StrCat(
      "gRPC is linked into the program, and its zlib calls ",
      result.active() ? "are" : "are NOT",
      " routed to pooled_gzip at link time (--wrap), seen ", Directions(result),
      " through gRPC's own message codec",
      CodecFunctions(plan, "--wrap, where it reaches their callers"));
  if (!result.active()) {
    absl::StrAppend(&result.explanation,
                    "; zlib or gRPC's message codec built with link-time "
                    "optimization together keep gRPC's zlib calls from "
                    "--wrap: link zlib as a shared library or an archive "
                    "built without -flto");
  }
  return result;
}

InstallResult Install() {
  const Plan& plan = TheOnePlan();
  switch (plan.route) {
    case Route::kNone:
      return {false, false, false, plan.explanation, plan.opted_out, false};
    case Route::kLinkTime:
      return InstallLinkedIn(plan);
    case Route::kZlibImports:
      break;
  }
  if (plan.served_elsewhere) return ServedElsewhere(*plan.served_elsewhere);
  if (!PinOwnObject()) {
    return {false, false,
            false, "pooled_gzip's own object could not be made permanent",
            false, false};
  }
  const bool codec_slots = !plan.codec_functions_refused.has_value();
  const SlotReport slots = PointEverySlot(codec_slots);
  // Not observed then: its messages would count in that copy's statistics.
  if (slots.taken > 0) return ServedElsewhere(slots.detail);
  InstallResult result = Observe(Stock());
  result.codec_functions = codec_slots;
  result.explanation =
      absl::StrCat("gRPC's zlib calls ", result.active() ? "are" : "are NOT",
                   " served by pooled_gzip, seen ", Directions(result),
                   " through libgrpc's own message codec (", slots.detail, ")",
                   codec_slots ? "" : CodecFunctions(plan, ""));
  return result;
}

std::atomic<const InstallResult*> g_installation{nullptr};
// What was seen, per direction, once installed.
std::atomic<bool> g_compress_served{false};
std::atomic<bool> g_decompress_served{false};
std::atomic<bool> g_codec_functions_served{false};

const InstallResult& Installation() {
  const InstallResult* before = g_installation.load(std::memory_order_acquire);
  const InstallResult& result = PublishOnce(g_installation, &Install);
  g_compress_served.store(result.compress, std::memory_order_release);
  g_decompress_served.store(result.decompress, std::memory_order_release);
  g_codec_functions_served.store(result.codec_functions,
                                 std::memory_order_release);
  if (before != nullptr) return result;
  // Logged once, by whichever call published first. A codec that cannot
  // be active is an error, printed at gRPC's default verbosity: the
  // process runs, but not as its set-up asked. Being active, or turned off
  // on purpose, is information (GRPC_VERBOSITY=INFO shows it).
  static std::atomic<bool> logged{false};
  if (logged.exchange(true)) return result;
  const std::string line = absl::StrCat(
      "pooled_gzip: core codec ", result.active() ? "active" : "NOT active",
      ": ", result.explanation, "; ",
      result.active() ? "typed and raw calls are pooled both ways"
      : result.decompress
          ? "outgoing messages use the interceptor path"
          : "outgoing messages use the interceptor path, received ones "
            "are inflated by gRPC without a cap");
  if (result.active() || result.opted_out) {
    POOLED_GZIP_LOG(kInfo, line);
  } else if (result.served_elsewhere) {
    POOLED_GZIP_LOG(kWarning, line);
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

namespace {

// Whether the core codec serves gRPC's codec functions in a direction:
// admitted, and that direction seen served. Otherwise gRPC's own serve
// them, and its zlib calls reach the pools where those are served.
bool CodecFunctionsServed(bool compressing) {
  return g_codec_functions_served.load(std::memory_order_acquire) &&
         CoreCodecServes(compressing);
}

}  // namespace

int RoutedCompress(grpc_compression_algorithm algorithm,
                   grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (!CodecFunctionsServed(/*compressing=*/true) &&
      Stock().compress != nullptr) {
    return Stock().compress(algorithm, input, output);
  }
  return PooledCompress(algorithm, input, output);
}

int RoutedDecompress(grpc_compression_algorithm algorithm,
                     grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (!CodecFunctionsServed(/*compressing=*/false) &&
      Stock().decompress != nullptr) {
    return Stock().decompress(algorithm, input, output);
  }
  return PooledDecompress(algorithm, input, output);
}

bool ActivateCoreCodec() {
  if (g_installation.load(std::memory_order_acquire) == nullptr) {
    return Installation().active();  // it has just pointed every slot
  }
  RefreshCoreCodec();
  return Installation().active();
}

bool IsCoreCodecActive() {
  return CoreCodecServes(/*compressing=*/true) &&
         CoreCodecServes(/*compressing=*/false);
}

bool CoreCodecServes(bool compressing) {
  return (compressing ? g_compress_served : g_decompress_served)
      .load(std::memory_order_acquire);
}

std::string CoreCodecExplanation() { return Installation().explanation; }

void RefreshCoreCodec() {
  const InstallResult* installed =
      g_installation.load(std::memory_order_acquire);
  if (installed == nullptr || !(installed->compress || installed->decompress) ||
      TheOnePlan().route != Route::kZlibImports) {
    return;
  }
  if (LoadedObjectsGeneration() ==
          g_pointed_generation.load(std::memory_order_relaxed) &&
      !g_lazy_pointed.load(std::memory_order_relaxed)) {
    return;
  }
  const SlotReport slots =
      PointEverySlot(!TheOnePlan().codec_functions_refused.has_value());
  static std::atomic<int64_t> next_line_ns{0};
  if (!slots.AllToUs() && slots.total > 0 && OnceAMinute(next_line_ns)) {
    POOLED_GZIP_LOG(kError,
                    absl::StrCat("pooled_gzip: an object loaded after the "
                                 "core codec was installed keeps gRPC's own "
                                 "message codec: ",
                                 slots.detail));
  }
}

}  // namespace internal
}  // namespace pooled_gzip
