#include "seam/activation.h"

#include <dlfcn.h>
#include <grpc/grpc.h>
#include <grpc/slice_buffer.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "codec/traffic.h"
#include "glue/codec_log.h"
#include "glue/grpc_log.h"
#include "seam/loaded_objects.h"
#include "seam/other_grpc.h"
#include "seam/real_zlib.h"
#include "seam/slot_guard.h"
#include "seam/slot_rewrite.h"
#include "seam/zlib_seam.h"

// gRPC's own message codec (src/core/lib/compression/message_compress.h,
// C++ linkage, unchanged from 1.51 through 1.83): what activation calls to
// see gRPC's streams served. Weak, so that a gRPC that does not export
// them still loads the library, which then says so.
int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output)
    __attribute__((weak));
int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output)
    __attribute__((weak));

namespace pooled_gzip {
namespace internal {
namespace {

// What activation concluded: set once per process, read by every caller.
struct Conclusion {
  ServingState compress = ServingState::kOff;
  ServingState decompress = ServingState::kOff;
  std::string explanation;
  LogSeverity severity = LogSeverity::kError;
  bool slots_pointed = false;  // a shared libgrpc's, read again later
  bool active() const { return served(true) && served(false); }
  bool served(bool compressing) const {
    return (compressing ? compress : decompress) == ServingState::kServed;
  }
};

Conclusion Refused(std::string why,
                   LogSeverity severity = LogSeverity::kError) {
  return {ServingState::kRefused, ServingState::kRefused, std::move(why),
          severity};
}

// What the static flavour adds to a program's link (plugin/CMakeLists.txt,
// pooled_gzip.pc), for the log of a program linked without it.
std::string LinkTimeRoutingOptions() {
  std::string options;
  for (const ZlibEntry& entry : ZlibEntries()) {
    absl::StrAppend(&options, options.empty() ? "" : " ",
                    "-Wl,--wrap=", entry.name, " -Wl,--undefined=__wrap_",
                    entry.name);
  }
  return options;
}

const void* OwnAddress() {
  return reinterpret_cast<const void*>(&InstallCoreCodec);
}

// An address inside the gRPC core this library uses.
const void* GrpcAddress() { return reinterpret_cast<const void*>(&grpc_init); }

// gRPC linked into the same object as this library (a static gRPC).
bool GrpcLinkedIn() { return SameLoadedObject(GrpcAddress(), OwnAddress()); }

// The slots of the entry points in `role`, or of all of them.
std::vector<SlotTarget> ZlibTargets(std::optional<ZlibEntryRole> role) {
  std::vector<SlotTarget> targets;
  for (const ZlibEntry& entry : ZlibEntries()) {
    if (role && entry.role != *role) continue;
    targets.push_back({entry.name, entry.served, entry.stock});
  }
  return targets;
}

// LoadedObjectsGeneration() read before the slots were last pointed.
std::atomic<uint64_t> g_pointed_generation{0};

// libgrpc's passing slots first, then, only once every one of them leads
// here, the ones that open served streams: a served stream must never meet
// one of real zlib's functions.
SlotReport PointEverySlot() {
  g_pointed_generation.store(LoadedObjectsGeneration(),
                             std::memory_order_relaxed);
  SlotReport slots = PointSlots(ZlibTargets(ZlibEntryRole::kPassing),
                                OwnAddress(), GrpcAddress());
  const std::vector<SlotTarget> opening = ZlibTargets(ZlibEntryRole::kOpening);
  slots.Add(slots.AllToUs()
                ? PointSlots(opening, OwnAddress(), GrpcAddress())
                : InspectSlots(opening, OwnAddress(), GrpcAddress()));
  GuardSlots(slots.rebindable);
  return slots;
}

// Whether the zlib emulation made, on this thread, the stream of each
// direction of one message through gRPC's own codec in `algorithm`.
struct Seen {
  bool compress = true;
  bool decompress = true;
};
void SeeOneFormat(grpc_compression_algorithm algorithm, Seen* seen) {
  static constexpr absl::string_view kMessage =
      "pooled_gzip sees gRPC's own message codec served: pooled_gzip sees "
      "gRPC's own message codec served: pooled_gzip sees gRPC's own codec";
  grpc_slice_buffer message;
  grpc_slice_buffer compressed;
  grpc_slice_buffer inflated;
  for (grpc_slice_buffer* buffer : {&message, &compressed, &inflated}) {
    grpc_slice_buffer_init(buffer);
  }
  grpc_slice_buffer_add(&message, grpc_slice_from_static_buffer(
                                      kMessage.data(), kMessage.size()));
  const uint64_t made = StreamsServedOnThisThread(/*compressing=*/true);
  const bool compressed_here =
      grpc_msg_compress(algorithm, &message, &compressed) == 1 &&
      StreamsServedOnThisThread(/*compressing=*/true) == made + 1;
  const uint64_t inflated_before =
      StreamsServedOnThisThread(/*compressing=*/false);
  const bool inflated_here =
      compressed.length > 0 &&
      grpc_msg_decompress(algorithm, &compressed, &inflated) == 1 &&
      StreamsServedOnThisThread(/*compressing=*/false) == inflated_before + 1 &&
      inflated.length == kMessage.size();
  seen->compress = seen->compress && compressed_here;
  seen->decompress = seen->decompress && inflated_here;
  for (grpc_slice_buffer* buffer : {&message, &compressed, &inflated}) {
    grpc_slice_buffer_destroy(buffer);
  }
}

// Both formats, both ways, through gRPC's own entry points: a direction is
// served only if every one of its streams was made by the pools.
Conclusion Observe(absl::string_view how, bool linked_in) {
  Seen seen;
  {
    const UncountedScope not_traffic;
    const RecognizingGrpcStreams observing;
    SeeOneFormat(GRPC_COMPRESS_GZIP, &seen);
    SeeOneFormat(GRPC_COMPRESS_DEFLATE, &seen);
  }
  Conclusion conclusion;
  conclusion.compress =
      seen.compress ? ServingState::kServed : ServingState::kRefused;
  conclusion.decompress =
      seen.decompress ? ServingState::kServed : ServingState::kRefused;
  const char* directions = seen.compress && seen.decompress ? "both ways"
                           : seen.compress                  ? "compressing only"
                           : seen.decompress ? "decompressing only"
                                             : "in neither direction";
  conclusion.explanation =
      absl::StrCat(how, ", seen ", directions,
                   " through gRPC's own message codec (gzip and deflate)");
  if (conclusion.active()) {
    conclusion.severity = LogSeverity::kInfo;
  } else if (linked_in) {
    absl::StrAppend(&conclusion.explanation,
                    "; zlib built with link-time optimization together with "
                    "gRPC keeps gRPC's zlib calls from --wrap: link zlib as a "
                    "shared library or an archive built without -flto");
  }
  return conclusion;
}

// A static gRPC and a shared libgrpc in one process, both named.
std::string TwoGrpcs(const std::string& other) {
  std::string where = "the program";
  Dl_info info;
  if (!InMainProgram(GrpcAddress()) && dladdr(GrpcAddress(), &info) != 0 &&
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

Conclusion ServedElsewhere(absl::string_view detail) {
  return Refused(
      absl::StrCat("gRPC's message codec is already served by another object (",
                   detail,
                   "), such as another copy of pooled_gzip; this copy leaves "
                   "it with its options, cap and statistics"),
      LogSeverity::kWarning);
}

Conclusion ServeLinkedIn() {
  if (std::optional<std::string> other = OtherGrpcBeside(GrpcAddress())) {
    return Refused(TwoGrpcs(*other));
  }
  if (!ZlibRoutedAtLinkTime()) {
    return Refused(
        absl::StrCat("gRPC is linked statically without pooled_gzip's "
                     "link-time routing; link the program with ",
                     LinkTimeRoutingOptions(),
                     " (pooled_gzip::pooled_gzip of a "
                     "BUILD_SHARED_LIBS=OFF install, and its "
                     "pooled_gzip.pc, add them)"));
  }
  return Observe(
      "gRPC is linked into the program, and its zlib calls are routed to "
      "pooled_gzip at link time (--wrap)",
      /*linked_in=*/true);
}

Conclusion ServeSharedLibgrpc() {
  if (!kTypesKnown) {
    return Refused(
        "this architecture's relocation types are not known to "
        "pooled_gzip (x86-64 and aarch64 only)");
  }
  const SlotReport found =
      InspectSlots(ZlibTargets(std::nullopt), OwnAddress(), GrpcAddress());
  if (found.total == 0) {
    return Refused(
        "the loaded libgrpc does not import zlib's entry points (zlib is "
        "linked into it)");
  }
  // Not observed then: its messages would count in that copy's statistics.
  if (found.taken > 0) return ServedElsewhere(found.detail);
  // No slot may lead into an object that can be unloaded.
  if (!PinObjectContaining(OwnAddress())) {
    return Refused("pooled_gzip's own object could not be made permanent");
  }
  const SlotReport slots = PointEverySlot();
  if (slots.taken > 0) return ServedElsewhere(slots.detail);
  if (!slots.AllToUs()) {
    return Refused(
        absl::StrCat("gRPC's zlib calls cannot all be pointed at pooled_gzip (",
                     slots.detail, "); none of its streams is served"));
  }
  Conclusion seen =
      Observe(absl::StrCat("gRPC's zlib calls lead to pooled_gzip (",
                           slots.detail, ")"),
              /*linked_in=*/false);
  seen.slots_pointed = true;
  return seen;
}

Conclusion Conclude() {
  if (const char* env = std::getenv("POOLED_GZIP_CORE_CODEC");
      env != nullptr && absl::string_view(env) == "0") {
    return {ServingState::kOff, ServingState::kOff,
            "turned off by POOLED_GZIP_CORE_CODEC=0", LogSeverity::kInfo};
  }
  if (grpc_msg_compress == nullptr || grpc_msg_decompress == nullptr) {
    return Refused(
        "the loaded gRPC exports no grpc_msg_compress and "
        "grpc_msg_decompress to see its message codec served through");
  }
  return GrpcLinkedIn() ? ServeLinkedIn() : ServeSharedLibgrpc();
}

// What the process does with gRPC's messages, in the log line's words.
const char* Consequence(const Conclusion& conclusion) {
  if (conclusion.active()) return "typed and raw calls are pooled both ways";
  // Only a copy serving elsewhere is a warning (ServedElsewhere).
  if (conclusion.severity == LogSeverity::kWarning) {
    return "that copy serves gRPC's messages";
  }
  if (conclusion.served(/*compressing=*/true)) {
    return "received messages are inflated by gRPC as without pooled_gzip, "
           "without a cap";
  }
  if (conclusion.served(/*compressing=*/false)) {
    return "sent messages are compressed by gRPC as without pooled_gzip";
  }
  return "messages not served are compressed and inflated by gRPC as "
         "without pooled_gzip, received ones without a cap";
}

// What the log line and CoreCodecStatus() say after "core codec ...: ".
std::string Described(const Conclusion& conclusion) {
  return absl::StrCat(conclusion.explanation, "; ", Consequence(conclusion));
}

// The directions not served, for CoreCodecStatus().
const char* NotServed(const Conclusion& conclusion) {
  if (conclusion.served(/*compressing=*/true)) return "decompressing";
  if (conclusion.served(/*compressing=*/false)) return "compressing";
  return "compressing and decompressing";
}

// Published without a lock: a caller never waits for another thread that
// concludes, since that thread may be waiting inside the dynamic loader for
// a lock this caller holds (a constructor that sets up a channel, run
// inside dlopen). Racing threads each conclude (every step is idempotent);
// the first conclusion published is the one kept, and logged.
std::atomic<const Conclusion*> g_conclusion{nullptr};

const Conclusion& Publish() {
  if (const Conclusion* kept = g_conclusion.load(std::memory_order_acquire)) {
    return *kept;
  }
  const Conclusion* made = new Conclusion(Conclude());
  const Conclusion* expected = nullptr;
  if (!g_conclusion.compare_exchange_strong(expected, made,
                                            std::memory_order_acq_rel)) {
    delete made;
    return *expected;
  }
  // An error is printed at gRPC's default verbosity: the process runs, but
  // not as its set-up asked. Active, or off on purpose, is information.
  POOLED_GZIP_LOG_AT(made->severity,
                     absl::StrCat("pooled_gzip: core codec ",
                                  made->active() ? "active" : "NOT active",
                                  ": ", Described(*made)));
  return *made;
}

void Refresh(const Conclusion& conclusion) {
  if (!conclusion.slots_pointed ||
      !(conclusion.served(true) || conclusion.served(false))) {
    return;
  }
  KeepSlotsPointed();
  if (LoadedObjectsGeneration() ==
      g_pointed_generation.load(std::memory_order_relaxed)) {
    return;
  }
  const SlotReport slots = PointEverySlot();
  static std::atomic<int64_t> next_line_ns{0};
  if (!slots.AllToUs() && slots.total > 0 && OnceAMinute(next_line_ns)) {
    POOLED_GZIP_LOG(kError,
                    absl::StrCat("pooled_gzip: an object loaded after the "
                                 "core codec was installed keeps gRPC's own "
                                 "message codec: ",
                                 slots.detail));
  }
}

}  // namespace

ServingState StateOf(bool compressing) {
  const Conclusion* conclusion = g_conclusion.load(std::memory_order_acquire);
  if (conclusion == nullptr) return ServingState::kOff;
  return compressing ? conclusion->compress : conclusion->decompress;
}

bool InstallCoreCodec() {
  const bool first = g_conclusion.load(std::memory_order_acquire) == nullptr;
  const Conclusion& conclusion = Publish();
  if (!first) Refresh(conclusion);  // the first call has just pointed them
  return conclusion.active();
}

bool CoreCodecActive() { return ActivationStatus().ok(); }

std::string CoreCodecExplanation() {
  const Conclusion* conclusion = g_conclusion.load(std::memory_order_acquire);
  return conclusion == nullptr ? "not installed" : conclusion->explanation;
}

CoreCodecState CurrentState() {
  return {StateOf(/*compressing=*/true), StateOf(/*compressing=*/false)};
}

absl::Status ActivationStatus() {
  const Conclusion* conclusion = g_conclusion.load(std::memory_order_acquire);
  if (conclusion == nullptr) {
    return absl::FailedPreconditionError(
        "core codec not installed: compressing and decompressing are gRPC's "
        "own until CreateChannel, a server set up by EnableOnServer, or "
        "InstallCoreCodec installs it");
  }
  if (!conclusion->active()) {
    return absl::FailedPreconditionError(
        absl::StrCat("core codec NOT active, ", NotServed(*conclusion),
                     " not served: ", Described(*conclusion)));
  }
  KeepSlotsPointed();  // what runs next is what this answers
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace pooled_gzip
