// zlib's four lazily bound entry points, defined as GNU indirect functions
// over libz's own in a library the test program links ahead of libz:
// libgrpc's JUMP_SLOTs bind to them, and the dynamic linker calls their
// resolver as it binds. (In the program itself, a library that binds
// zlib's names at load, as sid's libcrypto does, would make the loader
// refuse to start it.) Armed,
// a resolver holds the thread that binds there until released, as a
// thread preempted inside the binding would stay: what activation must
// outlive (seam/slot_guard.h).

#ifndef POOLED_GZIP_TEST_RELIABILITY_HELD_BINDINGS_H_
#define POOLED_GZIP_TEST_RELIABILITY_HELD_BINDINGS_H_

namespace pooled_gzip::test_support {

enum class HeldEntry {
  kNone,
  kDeflateInit2,
  kDeflateEnd,
  kInflateInit2,
  kInflateEnd
};

// The next binding of `entry` (on any thread) waits inside the dynamic
// linker until ReleaseHeldBinding().
void HoldNextBinding(HeldEntry entry);
// Whether a thread is waiting inside a binding held so.
bool BindingIsHeld();
void ReleaseHeldBinding();

}  // namespace pooled_gzip::test_support

#endif  // POOLED_GZIP_TEST_RELIABILITY_HELD_BINDINGS_H_
