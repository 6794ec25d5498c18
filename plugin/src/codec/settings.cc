#include "codec/settings.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "codec/backend.h"
#include "codec/pools.h"
#include "pool/held_across_fork.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Each direction's settings in one word. Compressing: the minimum size in
// the low 47 bits (saturating: a minimum of 128 TiB or more sends every
// message plain), the skip flag above it, then level + 1 and the backend in
// a byte each. Decompressing: the cap in the low 47 bits (all ones: no cap;
// a cap of 128 TiB or more is no cap), the strictness above it, then the
// gzip and the zlib decoder in a byte each.
constexpr int kMinBytesBits = 47;
constexpr uint64_t kMinBytesMask = (uint64_t{1} << kMinBytesBits) - 1;
constexpr int kCapBits = 47;
constexpr uint64_t kCapMask = (uint64_t{1} << kCapBits) - 1;
// The two bytes above the 48 low bits, in either word.
constexpr int kLowByteShift = 48;
constexpr int kHighByteShift = 56;

// A size in the `mask` bits below it, all ones standing for SIZE_MAX.
constexpr uint64_t Saturated(size_t value, uint64_t mask) {
  return value >= mask ? mask : static_cast<uint64_t>(value);
}
constexpr size_t Unsaturated(uint64_t word, uint64_t mask) {
  const uint64_t value = word & mask;
  return value == mask ? std::numeric_limits<size_t>::max()
                       : static_cast<size_t>(value);
}

constexpr uint64_t Pack(const CompressSettings& settings) {
  return Saturated(settings.min_compress_bytes, kMinBytesMask) |
         (uint64_t{settings.skip_incompressible} << kMinBytesBits) |
         (static_cast<uint64_t>(settings.level + 1) << kLowByteShift) |
         (static_cast<uint64_t>(settings.backend) << kHighByteShift);
}

CompressSettings UnpackCompress(uint64_t word) {
  CompressSettings settings;
  settings.min_compress_bytes = Unsaturated(word, kMinBytesMask);
  settings.skip_incompressible = ((word >> kMinBytesBits) & 1) != 0;
  settings.level = static_cast<int>((word >> kLowByteShift) & 0xff) - 1;
  settings.backend = static_cast<Backend>(word >> kHighByteShift);
  return settings;
}

constexpr uint64_t Pack(const DecompressSettings& settings) {
  return Saturated(settings.cap, kCapMask) |
         (static_cast<uint64_t>(settings.strictness) << kCapBits) |
         (static_cast<uint64_t>(settings.gzip_decoder) << kLowByteShift) |
         (static_cast<uint64_t>(settings.zlib_decoder) << kHighByteShift);
}

DecompressSettings UnpackDecompress(uint64_t word) {
  DecompressSettings settings;
  settings.cap = Unsaturated(word, kCapMask);
  settings.strictness = static_cast<Strictness>((word >> kCapBits) & 1);
  settings.gzip_decoder = static_cast<Backend>((word >> kLowByteShift) & 0xff);
  settings.zlib_decoder = static_cast<Backend>(word >> kHighByteShift);
  return settings;
}

// Constant-initialised: messages may be compressed before main().
std::atomic<uint64_t> g_compress{Pack(CompressSettings{})};
std::atomic<uint64_t> g_decompress{Pack(DecompressSettings{})};

// What the writers share; guarded by Mutex().
struct State {
  Options options;
};

// Safe across fork(), as the pools are: ApplyOptions holds it while it
// evicts from the pools, so the fork handler takes it before theirs.
std::mutex& Mutex() {
  static auto* mutex = [] {
    auto* created = new std::mutex;
    Writers();  // registers the pools' handler first (codec/pools.h)
    HoldAcrossFork<&Mutex>();
    return created;
  }();
  return *mutex;
}

State& Guarded() {
  static auto* state = new State;
  return *state;
}

// The largest noted limit. Written only with the mutex held; read without
// it, so that the common case of noting a limit no larger takes no lock.
std::atomic<size_t> g_noted_limit{kGrpcDefaultMaxReceive};

size_t DerivedCap(size_t noted_limit) {
  if (noted_limit > std::numeric_limits<size_t>::max() / kDerivedCapFactor) {
    return std::numeric_limits<size_t>::max();
  }
  return kDerivedCapFactor * noted_limit;
}

// The settings published in `word`, of the contexts in `pool`. The pool's
// generation is read before the settings: ApplyOptions publishes new
// settings before it retires the old ones' contexts (which advances the
// generation), so settings read after a generation are at least as new as
// it.
template <typename Pool, typename Settings>
Settings Current(const Pool& pool, const std::atomic<uint64_t>& word,
                 Settings (*unpack)(uint64_t)) {
  const uint64_t generation = pool.generation();
  Settings settings = unpack(word.load(std::memory_order_acquire));
  settings.pool_generation = generation;
  return settings;
}

// Publishes `state` to every reader; called with the mutex held.
void Publish(const State& state) {
  const Options& options = state.options;
  CompressSettings compress;
  compress.backend = options.backend;
  compress.level = options.level;
  compress.skip_incompressible = options.skip_incompressible;
  compress.min_compress_bytes = options.min_compress_bytes;
  DecompressSettings decompress;
  decompress.cap = options.max_decompressed_bytes.value_or(
      DerivedCap(g_noted_limit.load(std::memory_order_relaxed)));
  decompress.gzip_decoder =
      options.decoder.value_or(DefaultDecoder(Format::kGzip));
  decompress.zlib_decoder =
      options.decoder.value_or(DefaultDecoder(Format::kZlib));
  decompress.strictness =
      options.exact_zlib_refusals ? Strictness::kZlib : Strictness::kDecoder;
  g_compress.store(Pack(compress), std::memory_order_release);
  g_decompress.store(Pack(decompress), std::memory_order_release);
  SetIdleLimits(
      {options.max_idle_contexts_per_thread, options.max_pooled_bytes});
}

}  // namespace

Backend DefaultDecoder(Format format) {
  return pooled_gzip::DefaultDecoder(FormatName(format));
}

CompressSettings CurrentCompressSettings() {
  return Current(Writers(), g_compress, UnpackCompress);
}

DecompressSettings CurrentDecompressSettings() {
  return Current(Readers(), g_decompress, UnpackDecompress);
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
  State& state = Guarded();
  const Options before = state.options;
  state.options = options;
  Publish(state);
  // Idle contexts of settings no message asks for any more, in the reserve
  // or in living threads' lists, would hold the idle budget until their
  // thread or the process ends.
  const absl::StatusOr<int> old_level =
      ResolveLevel(before.backend, before.level);
  if (before.backend != options.backend || before.decoder != options.decoder ||
      before.exact_zlib_refusals != options.exact_zlib_refusals ||
      (old_level.ok() && *old_level != *level)) {
    const DecompressSettings decompress = CurrentDecompressSettings();
    EvictStaleContexts({options.backend, *level, decompress.gzip_decoder,
                        decompress.zlib_decoder, decompress.strictness});
  }
  return absl::OkStatus();
}

Options AppliedOptions() {
  std::lock_guard<std::mutex> lock(Mutex());
  return Guarded().options;
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
