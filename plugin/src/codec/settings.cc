#include "codec/settings.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>

#include "absl/status/statusor.h"
#include "codec/backend.h"
#include "codec/pools.h"

namespace pooled_gzip {
namespace internal {
namespace {

// CodecSettings in one word: the cap in the low 48 bits (all ones: no
// cap; a cap of 256 TiB or more is no cap), level + 1 and the backend in
// a byte each above it.
constexpr int kCapBits = 48;
constexpr uint64_t kNoCap = (uint64_t{1} << kCapBits) - 1;

constexpr uint64_t Pack(const CodecSettings& settings) {
  const uint64_t cap = settings.decompress_cap >= kNoCap
                           ? kNoCap
                           : static_cast<uint64_t>(settings.decompress_cap);
  return cap | (static_cast<uint64_t>(settings.level + 1) << kCapBits) |
         (static_cast<uint64_t>(settings.backend) << (kCapBits + 8));
}

CodecSettings Unpack(uint64_t word) {
  CodecSettings settings;
  const uint64_t cap = word & kNoCap;
  settings.decompress_cap = cap == kNoCap ? std::numeric_limits<size_t>::max()
                                          : static_cast<size_t>(cap);
  settings.level = static_cast<int>((word >> kCapBits) & 0xff) - 1;
  settings.backend = static_cast<Backend>(word >> (kCapBits + 8));
  return settings;
}

// Constant-initialised: messages may be compressed before main().
std::atomic<uint64_t> g_current{Pack(CodecSettings{})};

// What the writers share; guarded by Mutex().
struct State {
  Options options;
};

std::mutex& Mutex() {
  static auto* mutex = new std::mutex;
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

// Publishes `state` to every reader; called with the mutex held.
void Publish(const State& state) {
  CodecSettings settings;
  settings.backend = state.options.backend;
  settings.level = state.options.level;
  settings.decompress_cap = state.options.max_decompressed_bytes.value_or(
      DerivedCap(g_noted_limit.load(std::memory_order_relaxed)));
  g_current.store(Pack(settings), std::memory_order_release);
  SetIdleLimits({state.options.max_idle_contexts_per_thread,
                 state.options.max_pooled_bytes});
}

}  // namespace

CodecSettings CurrentSettings() {
  return Unpack(g_current.load(std::memory_order_acquire));
}

absl::Status ApplyOptions(const Options& options) {
  absl::StatusOr<int> level = ResolveLevel(options.backend, options.level);
  if (!level.ok()) return level.status();
  std::lock_guard<std::mutex> lock(Mutex());
  State& state = Guarded();
  const Options before = state.options;
  state.options = options;
  Publish(state);
  // Contexts parked for settings no message asks for any more would hold
  // the idle budget until the process ends.
  const absl::StatusOr<int> old_level =
      ResolveLevel(before.backend, before.level);
  if (before.backend != options.backend ||
      (old_level.ok() && *old_level != *level)) {
    EvictStaleContexts(options.backend, *level);
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
