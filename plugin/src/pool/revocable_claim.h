// What one thread's free list holds against an IdleBudget, in one atomic
// word, so that another thread can take the claim away without a lock and
// without touching the list. Whoever changes the word first accounts for a
// context, so none is un-claimed twice nor left claimed by nobody.

#ifndef POOLED_GZIP_SRC_POOL_REVOCABLE_CLAIM_H_
#define POOLED_GZIP_SRC_POOL_REVOCABLE_CLAIM_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace pooled_gzip {
namespace internal {

class RevocableClaim {
 public:
  // Bytes in the low bits, contexts above them, the revoked flag on top.
  // 2^48 bytes is far beyond any heap one free list could hold.
  static constexpr int kBytesBits = 48;
  static constexpr int kContextsBits = 15;
  static constexpr uint64_t kMaxBytes = (uint64_t{1} << kBytesBits) - 1;
  static constexpr uint64_t kMaxContexts = (uint64_t{1} << kContextsBits) - 1;

  struct Held {
    uint64_t bytes = 0;
    uint64_t contexts = 0;
  };

  // Owner only, with fewer than kMaxContexts held. False if revoked.
  bool Add(size_t bytes) { return Change(kOneContext + bytes); }

  // Owner only. False if revoked: the revoker accounted for the context.
  bool Remove(size_t bytes) { return Change(0 - (kOneContext + bytes)); }

  bool revoked() const {
    return (word_.load(std::memory_order_acquire) & kRevoked) != 0;
  }

  // Owner only, once revoked() and its list is freed. A read-modify-write,
  // so that the owner sees what a revoker wrote before revoking.
  void Restore() { word_.exchange(0, std::memory_order_acq_rel); }

  // Any thread. What the claim held, now the revoker's to give back; nothing
  // if revoked already. Writes even then, so that the owner's next Restore
  // or failed Add synchronises with this call.
  Held Revoke() {
    const uint64_t word = word_.exchange(kRevoked, std::memory_order_acq_rel);
    if ((word & kRevoked) != 0) return Held{};
    Held held;
    held.bytes = word & kMaxBytes;
    held.contexts = (word >> kBytesBits) & kMaxContexts;
    return held;
  }

 private:
  static constexpr uint64_t kOneContext = uint64_t{1} << kBytesBits;
  static constexpr uint64_t kRevoked = uint64_t{1} << 63;
  static_assert(kBytesBits + kContextsBits == 63, "the flag is the top bit");

  // Adds `delta` (modulo 2^64) unless revoked.
  bool Change(uint64_t delta) {
    uint64_t word = word_.load(std::memory_order_acquire);
    do {
      if ((word & kRevoked) != 0) return false;
    } while (!word_.compare_exchange_weak(word, word + delta,
                                          std::memory_order_acq_rel,
                                          std::memory_order_acquire));
    return true;
  }

  std::atomic<uint64_t> word_{0};
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_REVOCABLE_CLAIM_H_
