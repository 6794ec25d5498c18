#include "seam/core_codec.h"

#include <dlfcn.h>
#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/codec.h"
#include "codec/settings.h"
#include "pooled_gzip/export.h"
#include "seam/byte_buffer_codec.h"
#include "seam/grpc_log.h"
#include "seam/relocation_slots.h"
#include "seam/server_limits.h"
#include "seam/slice_buffers.h"

#if POOLED_GZIP_CORE_CODEC
// gRPC's declarations (src/core/lib/compression/message_compress.h, the
// same in 1.51.1 and 1.83.0):
// C++ linkage, so these names interpose on libgrpc's. Exported for that,
// though they are not the library's API.
POOLED_GZIP_EXPORT int grpc_msg_compress(grpc_compression_algorithm algorithm,
                                         grpc_slice_buffer* input,
                                         grpc_slice_buffer* output);
POOLED_GZIP_EXPORT int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                                           grpc_slice_buffer* input,
                                           grpc_slice_buffer* output);
#endif

namespace pooled_gzip {
namespace internal {
namespace {

constexpr char kCompressSymbol[] =
    "_Z17grpc_msg_compress26grpc_compression_algorithmP17grpc_slice_bufferS1_";
constexpr char kDecompressSymbol[] =
    "_Z19grpc_msg_decompress26grpc_compression_algorithmP17grpc_slice_"
    "bufferS1_";

std::atomic<bool> g_active{false};

// The gRPC versions whose two codec functions, their contract and their
// callers in the compression filter were verified, as "major.minor": the
// list plugin/CMakeLists.txt gated the build by.
std::vector<absl::string_view> VerifiedGrpc() {
  return absl::StrSplit(POOLED_GZIP_VERIFIED_GRPC, ',');
}

// "1.51.x or 1.83.x", for the logs.
std::string VerifiedGrpcNames() {
  return absl::StrCat(absl::StrJoin(VerifiedGrpc(), ".x or "), ".x");
}

[[maybe_unused]] bool IsVerifiedGrpc(absl::string_view version) {
  for (absl::string_view verified : VerifiedGrpc()) {
    if (absl::StartsWith(version, absl::StrCat(verified, "."))) return true;
  }
  return false;
}

// Where gRPC's calls land once installed: here, not the exported names,
// which this library's own references may bind to libgrpc's definitions.
int CompressEntry(grpc_compression_algorithm algorithm,
                  grpc_slice_buffer* input, grpc_slice_buffer* output);
int DecompressEntry(grpc_compression_algorithm algorithm,
                    grpc_slice_buffer* input, grpc_slice_buffer* output);

std::vector<SlotTarget> Targets() {
  return {{kCompressSymbol, reinterpret_cast<void*>(&CompressEntry)},
          {kDecompressSymbol, reinterpret_cast<void*>(&DecompressEntry)}};
}

void CopyRefs(grpc_slice_buffer* input, grpc_slice_buffer* output) {
  for (size_t i = 0; i < input->count; ++i) {
    grpc_slice_buffer_add(output, grpc_slice_ref(input->slices[i]));
  }
}

void LogInvalidAlgorithm(grpc_compression_algorithm algorithm) {
  POOLED_GZIP_LOG(kError, absl::StrCat("invalid compression algorithm ",
                                       static_cast<int>(algorithm)));
}

// A lazy slot is bound by calling through it once, with an algorithm that
// does no work.
void ResolveLazySlot(void* plt_target) {
  grpc_slice_buffer input;
  grpc_slice_buffer output;
  grpc_slice_buffer_init(&input);
  grpc_slice_buffer_init(&output);
  reinterpret_cast<MessageCodecFn>(plt_target)(GRPC_COMPRESS_NONE, &input,
                                               &output);
  grpc_slice_buffer_destroy(&input);
  grpc_slice_buffer_destroy(&output);
}

struct InstallResult {
  bool active = false;
  std::string explanation;
};

// What rules the core codec out before any slot is read: nullopt if
// nothing does.
std::optional<std::string> Obstacle() {
#if !POOLED_GZIP_CORE_CODEC
  return absl::StrCat(
      "this build of pooled_gzip has no core codec (it was built against a "
      "gRPC other than ",
      VerifiedGrpcNames(), ")");
#else
  if (const char* env = std::getenv("POOLED_GZIP_CORE_CODEC");
      env != nullptr && absl::string_view(env) == "0") {
    return "turned off by POOLED_GZIP_CORE_CODEC=0";
  }
  const std::string version = grpc::Version();
  if (!IsVerifiedGrpc(version)) {
    return absl::StrCat("gRPC ", version, " is loaded; the core codec needs ",
                        VerifiedGrpcNames());
  }
  if (!RelocationTypesKnown()) {
    return "this architecture's relocation types are not known to "
           "pooled_gzip (x86-64 only)";
  }
  return std::nullopt;
#endif
}

constexpr char kNoSlots[] =
    "no object imports gRPC's message codec through a relocation slot: "
    "gRPC is linked statically, or built with -Bsymbolic or LTO, so its "
    "calls cannot be served";

InstallResult TryInstall() {
  if (std::optional<std::string> obstacle = Obstacle()) {
    return {false, *std::move(obstacle)};
  }
  const SlotReport slots =
      ScanRelocationSlots(Targets(), reinterpret_cast<const void*>(&Targets),
                          &ResolveLazySlot, SlotScan::kRedirect);
  if (slots.total == 0) return {false, kNoSlots};
  if (!slots.AllToUs()) {
    return {false, absl::StrCat("gRPC's calls to its message codec could not "
                                "all be pointed at libpooled_gzip (",
                                slots.detail, ")")};
  }
  // Slots now point into this library: it must never be unloaded.
  Dl_info own;
  if (dladdr(reinterpret_cast<void*>(&CompressEntry), &own) != 0) {
    dlopen(own.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
  return {true, absl::StrCat("gRPC's message codec is served by pooled_gzip (",
                             slots.detail, ")")};
}

std::mutex& RefreshMutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
// LoadedObjectsGeneration() when the slots were last pointed here.
std::atomic<uint64_t> g_pointed_generation{0};

const InstallResult& Installation() {
  static const InstallResult* result = [] {
    std::lock_guard<std::mutex> lock(RefreshMutex());
    auto* result = new InstallResult(TryInstall());
    g_pointed_generation.store(LoadedObjectsGeneration(),
                               std::memory_order_relaxed);
    g_active.store(result->active, std::memory_order_release);
    const bool opted_out = !result->active && std::getenv(
                                                  "POOLED_GZIP_CORE_"
                                                  "CODEC") != nullptr;
    const std::string line = absl::StrCat(
        "pooled_gzip: core codec ", result->active ? "active" : "NOT active",
        ": ", result->explanation, "; ",
        result->active ? "typed and raw calls are pooled both ways"
                       : "outgoing messages use the interceptor path");
    if (result->active || opted_out) {
      POOLED_GZIP_LOG(kInfo, line);
    } else {
      POOLED_GZIP_LOG(kError, line);
    }
    if (result->active) NoteLimitsOfEveryServer();
    return result;
  }();
  return *result;
}

// Refusals by the cap are logged at most this often.
constexpr std::chrono::seconds kRefusalLogInterval{60};

bool RefusalLogDue() {
  static std::atomic<int64_t> next_ns{0};
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t next = next_ns.load(std::memory_order_relaxed);
  return now >= next &&
         next_ns.compare_exchange_strong(
             next, now + std::chrono::nanoseconds(kRefusalLogInterval).count(),
             std::memory_order_relaxed);
}

void LogRefusal(Format format, size_t cap) {
  if (!RefusalLogDue()) return;
  const bool explicit_cap = AppliedOptions().max_decompressed_bytes.has_value();
  POOLED_GZIP_LOG(
      kError,
      absl::StrFormat(
          "pooled_gzip: refused a received %s message: it inflates past the "
          "decompression cap of %u bytes (%s), so gRPC fails its call as a "
          "decompression error. Raise the cap with "
          "pooled_gzip::Options::max_decompressed_bytes. Logged at most once "
          "a minute; GetTrafficStats() counts every refusal.",
          FormatName(format), cap,
          explicit_cap ? std::string("set by Options::max_decompressed_bytes")
                       : absl::StrCat("twice the largest receive limit noted, ",
                                      NotedReceiveLimit(), " bytes")));
}

}  // namespace

const StockCodec& Stock() {
  static const StockCodec stock = [] {
    StockCodec codec;
    Dl_info grpc_info;
    Dl_info own_info;
    if (dladdr(reinterpret_cast<void*>(&grpc_init), &grpc_info) == 0 ||
        dladdr(reinterpret_cast<void*>(&PooledCompress), &own_info) == 0 ||
        grpc_info.dli_fbase == own_info.dli_fbase) {
      return codec;
    }
    // dlsym on libgrpc's own handle finds its definitions, whoever else
    // defines the names.
    void* grpc = dlopen(grpc_info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (grpc == nullptr) return codec;
    codec.compress =
        reinterpret_cast<MessageCodecFn>(dlsym(grpc, kCompressSymbol));
    codec.decompress =
        reinterpret_cast<MessageCodecFn>(dlsym(grpc, kDecompressSymbol));
    dlclose(grpc);  // NOLOAD took a reference; libgrpc stays loaded
    Dl_info found;
    for (MessageCodecFn* fn : {&codec.compress, &codec.decompress}) {
      if (*fn != nullptr && dladdr(reinterpret_cast<void*>(*fn), &found) != 0 &&
          found.dli_fbase == own_info.dli_fbase) {
        *fn = nullptr;  // ours: forwarding there would recurse
      }
    }
    return codec;
  }();
  return stock;
}

int PooledCompress(grpc_compression_algorithm algorithm,
                   grpc_slice_buffer* input, grpc_slice_buffer* output) {
  const std::optional<Format> format = FormatOf(algorithm);
  if (!format) {
    if (algorithm != GRPC_COMPRESS_NONE) LogInvalidAlgorithm(algorithm);
    CopyRefs(input, output);
    return 0;
  }
  // Core counts what `output` already holds against the input's length.
  const size_t before = output->length;
  CompressOptions options = ConfiguredOptions(*format, Skipping::kAsConfigured);
  options.max_output_bytes =
      input->length > before ? input->length - before - 1 : 0;
  grpc_slice_buffer compressed;
  grpc_slice_buffer_init(&compressed);
  SliceBufferSink sink(&compressed);
  const absl::Status status = Compress(ViewsOf(*input), options, &sink);
  if (status.ok()) {
    grpc_slice_buffer_move_into(&compressed, output);
  } else {
    CopyRefs(input, output);
  }
  grpc_slice_buffer_destroy(&compressed);
  return status.ok() ? 1 : 0;
}

int PooledDecompress(grpc_compression_algorithm algorithm,
                     grpc_slice_buffer* input, grpc_slice_buffer* output) {
  const std::optional<Format> format = FormatOf(algorithm);
  if (!format) {
    if (algorithm == GRPC_COMPRESS_NONE) {
      CopyRefs(input, output);
      return 1;
    }
    LogInvalidAlgorithm(algorithm);
    return 0;
  }
  // Core's loop never runs for a buffer of no slices and calls that an
  // empty message (one empty slice); no slices is not the same as empty
  // ones, which core reads as a truncated stream.
  if (input->count == 0) {
    grpc_slice_buffer_add_indexed(output, grpc_empty_slice());
    return 1;
  }
  grpc_slice_buffer inflated;
  grpc_slice_buffer_init(&inflated);
  SliceBufferSink sink(&inflated);
  const DecompressSettings settings = CurrentDecompressSettings();
  const absl::Status status = Decompress(ViewsOf(*input), *format, settings.cap,
                                         &sink, settings.DecoderFor(*format));
  if (status.ok()) grpc_slice_buffer_move_into(&inflated, output);
  if (absl::IsResourceExhausted(status)) LogRefusal(*format, settings.cap);
  grpc_slice_buffer_destroy(&inflated);
  return status.ok() ? 1 : 0;
}

bool ActivateCoreCodec() {
  const bool active = Installation().active;
  RefreshCoreCodec();
  return active;
}

bool IsCoreCodecActive() { return g_active.load(std::memory_order_acquire); }

std::string CoreCodecExplanation() { return Installation().explanation; }

bool CoreCodecInstallable() {
  static const bool installable = [] {
    if (Obstacle()) return false;
    return ScanRelocationSlots(Targets(),
                               reinterpret_cast<const void*>(&Targets),
                               /*resolve=*/nullptr, SlotScan::kInspect)
               .total > 0;
  }();
  return installable;
}

void RefreshCoreCodec() {
  if (!IsCoreCodecActive()) return;
  const uint64_t generation = LoadedObjectsGeneration();
  if (generation == g_pointed_generation.load(std::memory_order_relaxed)) {
    return;
  }
  std::lock_guard<std::mutex> lock(RefreshMutex());
  const SlotReport slots =
      ScanRelocationSlots(Targets(), reinterpret_cast<const void*>(&Targets),
                          &ResolveLazySlot, SlotScan::kRedirect);
  g_pointed_generation.store(generation, std::memory_order_relaxed);
  if (!slots.AllToUs()) {
    POOLED_GZIP_LOG(kError,
                    absl::StrCat("pooled_gzip: an object loaded after the "
                                 "core codec was installed keeps gRPC's own "
                                 "message codec: ",
                                 slots.detail));
  }
}

namespace {

int CompressEntry(grpc_compression_algorithm algorithm,
                  grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (!IsCoreCodecActive() && Stock().compress != nullptr) {
    return Stock().compress(algorithm, input, output);
  }
  return PooledCompress(algorithm, input, output);
}

int DecompressEntry(grpc_compression_algorithm algorithm,
                    grpc_slice_buffer* input, grpc_slice_buffer* output) {
  if (!IsCoreCodecActive() && Stock().decompress != nullptr) {
    return Stock().decompress(algorithm, input, output);
  }
  return PooledDecompress(algorithm, input, output);
}

}  // namespace
}  // namespace internal

}  // namespace pooled_gzip

#if POOLED_GZIP_CORE_CODEC
// Where libpooled_gzip precedes libgrpc in the lookup order, gRPC's calls
// land here without any slot pointed; until the codec is installed, they
// go on to gRPC's own definitions.
int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return pooled_gzip::internal::CompressEntry(algorithm, input, output);
}

int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output) {
  return pooled_gzip::internal::DecompressEntry(algorithm, input, output);
}
#endif
