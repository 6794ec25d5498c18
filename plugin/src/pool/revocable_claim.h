// What one thread's free list holds against an IdleBudget, and who may
// change the list, in one atomic word, so that another thread can take the
// claim, and the list with it, without a lock and without ever waiting for
// the list's thread, which never waits either. Whoever changes the word
// first accounts for a context, so none is un-claimed twice nor left
// claimed by nobody.
//
// The list's thread (the owner) holds the word while it changes the list
// (TryHold, then AddAndLetGo, RemoveAndLetGo or LetGo). Another thread (a
// revoker, one at a time: the caller serialises them) Takes the word: if
// the owner is not holding it, the list is the revoker's until it gives it
// back (Give, or GiveRevoked once emptied); if the owner is, the claim is
// revoked, and the owner, told so as it lets go, frees the list and
// Restores the word.

#ifndef POOLED_GZIP_SRC_POOL_REVOCABLE_CLAIM_H_
#define POOLED_GZIP_SRC_POOL_REVOCABLE_CLAIM_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace pooled_gzip {
namespace internal {

class RevocableClaim {
 public:
  // Bytes in the low bits, contexts above them, the held and revoked flags
  // on top. 2^47 bytes is far beyond any heap one free list could hold.
  static constexpr int kBytesBits = 47;
  static constexpr int kContextsBits = 15;
  static constexpr uint64_t kMaxBytes = (uint64_t{1} << kBytesBits) - 1;
  static constexpr uint64_t kMaxContexts = (uint64_t{1} << kContextsBits) - 1;

  struct Held {
    uint64_t bytes = 0;
    uint64_t contexts = 0;
  };

  enum class Hold {
    kHeld,     // the list is the owner's to change until it lets go
    kRevoked,  // revoked: the owner frees the list and Restores first
    kTaken,    // a revoker has the list: the owner leaves it alone
  };

  // Contexts the list holds by the word: 0 while revoked or taken, what it
  // held before while its owner holds it.
  uint64_t contexts() const {
    const uint64_t word = word_.load(std::memory_order_acquire);
    return (word & kRevokedFlag) != 0 ? 0 : ContextsOf(word);
  }

  // Owner only, not holding. Whether it may change the list now.
  Hold TryHold() {
    uint64_t word = word_.load(std::memory_order_acquire);
    do {
      if ((word & kHeldFlag) != 0) return Hold::kTaken;
      if ((word & kRevokedFlag) != 0) return Hold::kRevoked;
    } while (!word_.compare_exchange_weak(word, word | kHeldFlag,
                                          std::memory_order_acq_rel,
                                          std::memory_order_acquire));
    return Hold::kHeld;
  }

  // Owner only, holding, with fewer than kMaxContexts held: one context of
  // `bytes` more in the list. False if a revoker came meanwhile: it
  // accounted for the list as it was, which is now the owner's to free (the
  // word is revoked, no longer held).
  bool AddAndLetGo(size_t bytes) { return LetGo(kOneContext + bytes); }

  // Owner only, holding: one context of `bytes` out of the list. False as
  // above: the revoker accounted for that context too.
  bool RemoveAndLetGo(size_t bytes) { return LetGo(0 - (kOneContext + bytes)); }

  // Owner only, holding, the list unchanged. False as above.
  bool LetGo() { return LetGo(0); }

  // Owner only: revoked and not taken, so the list is the owner's to free.
  bool revoked() const {
    const uint64_t word = word_.load(std::memory_order_acquire);
    return (word & (kRevokedFlag | kHeldFlag)) == kRevokedFlag;
  }

  // Owner only, once revoked() and its list is freed. A read-modify-write,
  // so that the owner sees what a revoker wrote before revoking.
  void Restore() { word_.exchange(0, std::memory_order_acq_rel); }

  // A revoker, one at a time. Takes the claim: `held` is what it held, now
  // the revoker's to give back. True if the list came with it (the owner
  // was not holding it): the revoker's until it calls Give or GiveRevoked.
  // False if the owner holds the list, which it then frees as it lets go,
  // or the claim was revoked already (nothing held); the word is written
  // even then, so that the owner's next Restore or failed let-go
  // synchronises with this call.
  bool Take(Held* held) {
    uint64_t word = word_.load(std::memory_order_acquire);
    uint64_t next;
    do {
      *held = Held{};
      if ((word & kRevokedFlag) != 0) {
        next = word;
      } else {
        held->bytes = word & kMaxBytes;
        held->contexts = ContextsOf(word);
        next = (word & kHeldFlag) != 0 ? kRevokedFlag | kHeldFlag : kHeldFlag;
      }
    } while (!word_.compare_exchange_weak(word, next, std::memory_order_acq_rel,
                                          std::memory_order_acquire));
    return next == kHeldFlag;
  }

  // After a Take that came with the list: the owner's again, the list now
  // holding `held`.
  void Give(Held held) {
    word_.store(held.bytes | held.contexts << kBytesBits,
                std::memory_order_release);
  }

  // After a Take that came with the list, the list emptied: revoked, so
  // that the owner reads what the revoker wrote before it pools again.
  void GiveRevoked() { word_.store(kRevokedFlag, std::memory_order_release); }

 private:
  static constexpr uint64_t kOneContext = uint64_t{1} << kBytesBits;
  static constexpr uint64_t kHeldFlag = uint64_t{1} << 62;
  static constexpr uint64_t kRevokedFlag = uint64_t{1} << 63;
  static_assert(kBytesBits + kContextsBits == 62, "the flags are on top");

  static uint64_t ContextsOf(uint64_t word) {
    return (word >> kBytesBits) & kMaxContexts;
  }

  // Adds `delta` (modulo 2^64) and lets go, unless revoked: then only lets
  // go, the word left revoked.
  bool LetGo(uint64_t delta) {
    uint64_t word = word_.load(std::memory_order_relaxed);
    do {
      if ((word & kRevokedFlag) != 0) {
        word_.fetch_and(~kHeldFlag, std::memory_order_acq_rel);
        return false;
      }
    } while (!word_.compare_exchange_weak(word, (word + delta) & ~kHeldFlag,
                                          std::memory_order_acq_rel,
                                          std::memory_order_acquire));
    return true;
  }

  std::atomic<uint64_t> word_{0};
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_POOL_REVOCABLE_CLAIM_H_
