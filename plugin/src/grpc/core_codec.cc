#include "grpc/core_codec.h"

#include <dlfcn.h>
#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdlib>
#include <limits>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/codec.h"
#include "grpc/byte_buffer_codec.h"
#include "grpc/relocation_check.h"
#include "grpc/slice_buffers.h"
#include "pooled_gzip/pooled_gzip.h"

#if POOLED_GZIP_CORE_CODEC
// gRPC 1.51.1's declarations (src/core/lib/compression/message_compress.h):
// C++ linkage, so these names interpose on libgrpc's.
int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output);
int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output);
#endif

namespace pooled_gzip {
namespace internal {
namespace {

constexpr char kCompressSymbol[] =
    "_Z17grpc_msg_compress26grpc_compression_algorithmP17grpc_slice_bufferS1_";
constexpr char kDecompressSymbol[] =
    "_Z19grpc_msg_decompress26grpc_compression_algorithmP17grpc_slice_"
    "bufferS1_";

// gRPC's default max_receive_message_length.
constexpr size_t kGrpcDefaultMaxReceive = 4 * 1024 * 1024;

std::atomic<bool> g_active{false};

std::atomic<bool> g_has_explicit_cap{false};
std::atomic<size_t> g_explicit_cap{0};
// 0 until a channel or server notes its limit.
std::atomic<size_t> g_noted_limit{0};

void CopyRefs(grpc_slice_buffer* input, grpc_slice_buffer* output) {
  for (size_t i = 0; i < input->count; ++i) {
    grpc_slice_buffer_add(output, grpc_slice_ref(input->slices[i]));
  }
}

void LogInvalidAlgorithm(grpc_compression_algorithm algorithm) {
  gpr_log(GPR_ERROR, "invalid compression algorithm %d", algorithm);
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

InstallResult TryInstall() {
#if !POOLED_GZIP_CORE_CODEC
  return {false,
          "this build of pooled_gzip has no core codec (it was built against "
          "a gRPC other than 1.51.x)"};
#else
  if (const char* env = std::getenv("POOLED_GZIP_CORE_CODEC");
      env != nullptr && absl::string_view(env) == "0") {
    return {false, "turned off by POOLED_GZIP_CORE_CODEC=0"};
  }
  const std::string version = grpc::Version();
  if (!absl::StartsWith(version, "1.51.")) {
    return {false, absl::StrCat("gRPC ", version,
                                " is loaded; the core codec needs 1.51.x")};
  }
  const SlotReport slots = CheckRelocationSlots(
      {kCompressSymbol, kDecompressSymbol},
      reinterpret_cast<const void*>(&PooledCompress), &ResolveLazySlot);
  if (!slots.AllToUs()) {
    return {false,
            absl::StrCat(
                "gRPC's calls to its message codec do not reach "
                "libpooled_gzip (",
                slots.total == 0 ? "no relocation slots found" : slots.detail,
                "). Link pooled_gzip before gRPC: with CMake, "
                "target_link_libraries(app PRIVATE pooled_gzip::pooled_gzip); "
                "by hand, -lpooled_gzip before -lgrpc++ -lgrpc; a dlopen()ed "
                "library or a static gRPC cannot be served")};
  }
  return {true, absl::StrCat("gRPC's message codec is served by pooled_gzip (",
                             slots.detail, ")")};
#endif
}

const InstallResult& Installation() {
  static const InstallResult* result = [] {
    auto* result = new InstallResult(TryInstall());
    g_active.store(result->active, std::memory_order_release);
    gpr_log(__FILE__, __LINE__,
            result->active ? GPR_LOG_SEVERITY_INFO : GPR_LOG_SEVERITY_ERROR,
            "pooled_gzip: core codec %s: %s; %s",
            result->active ? "active" : "NOT active",
            result->explanation.c_str(),
            result->active ? "typed and raw calls are pooled both ways"
                           : "outgoing messages use the interceptor path");
    return result;
  }();
  return *result;
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
  if (before + MinStreamBytes(*format) >= input->length) {
    CopyRefs(input, output);
    return 0;
  }
  CompressOptions options = ConfiguredOptions(*format);
  options.max_output_bytes = input->length - before - 1;
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
  const absl::Status status =
      Decompress(ViewsOf(*input), *format, DecompressCap(), &sink,
                 CurrentSettings().backend);
  if (status.ok()) grpc_slice_buffer_move_into(&inflated, output);
  grpc_slice_buffer_destroy(&inflated);
  return status.ok() ? 1 : 0;
}

std::string CoreCodecExplanation() { return Installation().explanation; }

size_t DecompressCap() {
  if (g_has_explicit_cap.load(std::memory_order_relaxed)) {
    return g_explicit_cap.load(std::memory_order_relaxed);
  }
  const size_t noted = g_noted_limit.load(std::memory_order_relaxed);
  return noted != 0 ? noted : kGrpcDefaultMaxReceive;
}

void SetExplicitDecompressCap(std::optional<size_t> cap) {
  g_explicit_cap.store(cap.value_or(0), std::memory_order_relaxed);
  g_has_explicit_cap.store(cap.has_value(), std::memory_order_relaxed);
}

std::optional<size_t> ExplicitDecompressCap() {
  if (!g_has_explicit_cap.load(std::memory_order_relaxed)) return std::nullopt;
  return g_explicit_cap.load(std::memory_order_relaxed);
}

void NoteReceiveLimit(int max_receive_message_length) {
  const size_t limit = max_receive_message_length < 0
                           ? std::numeric_limits<size_t>::max()
                           : static_cast<size_t>(max_receive_message_length);
  size_t current = g_noted_limit.load(std::memory_order_relaxed);
  while (current < limit && !g_noted_limit.compare_exchange_weak(
                                current, limit, std::memory_order_relaxed)) {
  }
}

}  // namespace internal

bool InstallCoreCodec() { return internal::Installation().active; }

bool CoreCodecActive() {
  return internal::g_active.load(std::memory_order_acquire);
}

}  // namespace pooled_gzip

#if POOLED_GZIP_CORE_CODEC
int grpc_msg_compress(grpc_compression_algorithm algorithm,
                      grpc_slice_buffer* input, grpc_slice_buffer* output) {
  using pooled_gzip::internal::Stock;
  if (!pooled_gzip::CoreCodecActive() && Stock().compress != nullptr) {
    return Stock().compress(algorithm, input, output);
  }
  return pooled_gzip::internal::PooledCompress(algorithm, input, output);
}

int grpc_msg_decompress(grpc_compression_algorithm algorithm,
                        grpc_slice_buffer* input, grpc_slice_buffer* output) {
  using pooled_gzip::internal::Stock;
  if (!pooled_gzip::CoreCodecActive() && Stock().decompress != nullptr) {
    return Stock().decompress(algorithm, input, output);
  }
  return pooled_gzip::internal::PooledDecompress(algorithm, input, output);
}
#endif
