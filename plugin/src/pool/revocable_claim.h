// What one thread's free list holds against an IdleBudget, in one atomic
// word, so that another thread can take the claim away without a lock and
// without touching the list.
//
// The owning thread adds and removes contexts; any thread may Revoke. Once
// revoked, the claim counts nothing and refuses Add and Remove until the
// owner, having freed every context its list held (the revoker gave their
// bytes back), calls Restore. The word settles who accounts for a
// context: whoever changes it first, so a context is never un-claimed twice
// nor left claimed by nobody.

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

  // Owner only, with fewer than kMaxContexts held. False, changing
  // nothing, if revoked.
  bool Add(size_t bytes) {
    uint64_t word = word_.load(std::memory_order_acquire);
    do {
      if ((word & kRevoked) != 0) return false;
    } while (!word_.compare_exchange_weak(word, word + kOneContext + bytes,
                                          std::memory_order_acq_rel,
                                          std::memory_order_acquire));
    return true;
  }

  // Owner only, for a context it added. False, changing nothing, if revoked:
  // the revoker has already taken the context out of the books.
  bool Remove(size_t bytes) {
    uint64_t word = word_.load(std::memory_order_acquire);
    do {
      if ((word & kRevoked) != 0) return false;
    } while (!word_.compare_exchange_weak(word, word - kOneContext - bytes,
                                          std::memory_order_acq_rel,
                                          std::memory_order_acquire));
    return true;
  }

  bool revoked() const {
    return (word_.load(std::memory_order_acquire) & kRevoked) != 0;
  }

  // Owner only, once revoked() and every context its list held is freed.
  // A read-modify-write, like every Revoke, so that the owner sees what a
  // revoker wrote before revoking (Revoke's caller may publish more).
  void Restore() { word_.exchange(0, std::memory_order_acq_rel); }

  // Any thread. What the claim held, now the revoker's to give back; nothing
  // if it was revoked already. Writes the word even then, so that the
  // owner's next Restore or failed Add synchronises with this call.
  Held Revoke() {
    const uint64_t word = word_.exchange(kRevoked, std::memory_order_acq_rel);
    if ((word & kRevoked) != 0) return Held{};
    return Unpack(word);
  }

 private:
  static constexpr uint64_t kOneContext = uint64_t{1} << kBytesBits;
  static constexpr uint64_t kRevoked = uint64_t{1} << 63;
  static_assert(kBytesBits + kContextsBits == 63, "the flag is the top bit");

  static Held Unpack(uint64_t word) {
    Held held;
    held.bytes = word & kMaxBytes;
    held.contexts = (word >> kBytesBits) & kMaxContexts;
    return held;
  }

  std::atomic<uint64_t> word_{0};
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_REVOCABLE_CLAIM_H_
