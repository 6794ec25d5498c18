#include "codec/settings.h"

#include <atomic>
#include <limits>
#include <mutex>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "codec/pools.h"
#include "pool/held_across_fork.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Each direction's settings in one word. Compressing: the minimum size in
// the low 47 bits (all ones, 128 TiB or more, sends every message plain),
// the skip flag, then level + 1 and the backend in a byte each.
// Decompressing: the cap in the low 47 bits (all ones: no cap), the
// strictness, then the gzip and the deflate decoder in a byte each.
constexpr int kSizeBits = 47;
constexpr uint64_t kSizeMask = (uint64_t{1} << kSizeBits) - 1;
constexpr int kLowByteShift = 48;
constexpr int kHighByteShift = 56;

// A size in the low bits, all ones standing for SIZE_MAX.
constexpr uint64_t Saturated(size_t value) {
  return value >= kSizeMask ? kSizeMask : static_cast<uint64_t>(value);
}
constexpr size_t Unsaturated(uint64_t word) {
  const uint64_t value = word & kSizeMask;
  return value == kSizeMask ? std::numeric_limits<size_t>::max()
                            : static_cast<size_t>(value);
}

constexpr uint64_t Pack(const CompressSettings& settings) {
  return Saturated(settings.min_compress_bytes) |
         (uint64_t{settings.skip_incompressible} << kSizeBits) |
         (static_cast<uint64_t>(settings.level + 1) << kLowByteShift) |
         (static_cast<uint64_t>(settings.backend) << kHighByteShift);
}

constexpr uint64_t Pack(const DecompressSettings& settings) {
  return Saturated(settings.cap) |
         (static_cast<uint64_t>(settings.strictness) << kSizeBits) |
         (static_cast<uint64_t>(settings.gzip_decoder) << kLowByteShift) |
         (static_cast<uint64_t>(settings.deflate_decoder) << kHighByteShift);
}

// Constant-initialised, from a fresh process's options: messages may be
// compressed before main().
std::atomic<uint64_t> g_compress{Pack(CompressSettingsOf(Options{}))};
std::atomic<uint64_t> g_decompress{
    Pack(DecompressSettingsOf(Options{}, kGrpcDefaultMaxReceive))};

// Held across fork(), before the pools' locks: ApplyOptions evicts under it.
std::mutex& Mutex() {
  static auto* mutex = [] {
    auto* created = new std::mutex;
    Writers();  // registers the pools' handler first (codec/pools.h)
    HoldAcrossFork<&Mutex>();
    return created;
  }();
  return *mutex;
}

// The options applied; guarded by Mutex().
Options& Guarded() {
  static auto* options = new Options;
  return *options;
}

// Written under the mutex; read without it, so noting no larger limit is free.
std::atomic<size_t> g_noted_limit{kGrpcDefaultMaxReceive};

// Called with the mutex held.
void Publish(const Options& options) {
  g_compress.store(Pack(CompressSettingsOf(options)),
                   std::memory_order_release);
  g_decompress.store(
      Pack(DecompressSettingsOf(options,
                                g_noted_limit.load(std::memory_order_relaxed))),
      std::memory_order_release);
  Budget()->SetLimits(PoolLimitsOf(options));
}

// Idle contexts of settings no longer in use would hold the budget until
// their thread ends. By value: the pools keep the predicates.
void EvictStale(Backend backend, int level, DecompressSettings decompress) {
  Writers().EvictIdleIf([backend, level](const DeflaterKey& key) {
    return key.backend != backend || key.level != level;
  });
  Readers().EvictIdleIf([decompress](const InflaterKey& key) {
    const Backend decoder = key.format == Format::kGzip
                                ? decompress.gzip_decoder
                                : decompress.deflate_decoder;
    // zlib's readers are one kind whatever the strictness (ReaderFor).
    return key.backend != decoder || (decoder != Backend::kZlib &&
                                      key.strictness != decompress.strictness);
  });
}

// What is idle past caps just lowered would stay until reused. What
// threads left at exit goes first, then living threads'; in each, message
// buffers (only memory to make again) before readers, and writers (the
// costliest to make) last.
void TrimToLimits() {
  Buffers().TrimReserve();
  Readers().TrimReserve();
  Writers().TrimReserve();
  Buffers().TrimThreads();
  Readers().TrimThreads();
  Writers().TrimThreads();
}

}  // namespace

// The generation first: ApplyOptions publishes before it retires contexts.
CompressSettings CurrentCompressSettings() {
  CompressSettings settings;
  settings.settings_generation = Writers().generation();
  const uint64_t word = g_compress.load(std::memory_order_acquire);
  settings.min_compress_bytes = Unsaturated(word);
  settings.skip_incompressible = ((word >> kSizeBits) & 1) != 0;
  settings.level = static_cast<int>((word >> kLowByteShift) & 0xff) - 1;
  settings.backend = static_cast<Backend>(word >> kHighByteShift);
  return settings;
}

DecompressSettings CurrentDecompressSettings() {
  DecompressSettings settings;
  settings.settings_generation = Readers().generation();
  const uint64_t word = g_decompress.load(std::memory_order_acquire);
  settings.cap = Unsaturated(word);
  settings.strictness = static_cast<Strictness>((word >> kSizeBits) & 1);
  settings.gzip_decoder = static_cast<Backend>((word >> kLowByteShift) & 0xff);
  settings.deflate_decoder = static_cast<Backend>(word >> kHighByteShift);
  return settings;
}

absl::Status ApplyOptions(const Options& options) {
  if (!KnownBackend(options.backend)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::backend is none of Backend's values: ",
                     static_cast<int>(options.backend)));
  }
  // Published as is, an unknown decoder would fail every message received.
  if (options.decoder.has_value() && !KnownBackend(*options.decoder)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::decoder is none of Backend's values: ",
                     static_cast<int>(*options.decoder)));
  }
  absl::StatusOr<int> level = ResolveLevel(options.backend, options.level);
  if (!level.ok()) return level.status();
  std::lock_guard<std::mutex> lock(Mutex());
  const Options before = Guarded();
  Guarded() = options;
  Publish(options);
  const absl::StatusOr<int> old_level =
      ResolveLevel(before.backend, before.level);
  if (before.backend != options.backend || before.decoder != options.decoder ||
      before.exact_zlib_refusals != options.exact_zlib_refusals ||
      (old_level.ok() && *old_level != *level)) {
    EvictStale(options.backend, *level, CurrentDecompressSettings());
  }
  if (options.max_pooled_bytes < before.max_pooled_bytes ||
      options.max_idle_contexts_per_thread <
          before.max_idle_contexts_per_thread) {
    TrimToLimits();
  }
  return absl::OkStatus();
}

Options AppliedOptions() {
  std::lock_guard<std::mutex> lock(Mutex());
  return Guarded();
}

void NoteReceiveLimit(int max_receive_message_length) {
  if (max_receive_message_length < 0) return;
  const auto limit = static_cast<size_t>(max_receive_message_length);
  if (limit <= g_noted_limit.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(Mutex());
  if (limit <= g_noted_limit.load(std::memory_order_relaxed)) return;
  g_noted_limit.store(limit, std::memory_order_release);
  Publish(Guarded());
}

size_t NotedReceiveLimit() {
  return g_noted_limit.load(std::memory_order_acquire);
}

}  // namespace internal
}  // namespace pooled_gzip
