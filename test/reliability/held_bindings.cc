#include "held_bindings.h"

#include <dlfcn.h>
#include <sched.h>

// Resolvers may run while the dynamic linker relocates the program, before
// any sanitizer runtime is initialised, and before this object itself is
// relocated (a library bound at load, as sid's libcrypto binds zlib's
// names, may be relocated first): nothing they run may be instrumented or
// go through this object's own relocations, which plain calls and the
// addresses of functions and variables of this file do not.
#if defined(__clang__)
#define UNINSTRUMENTED __attribute__((disable_sanitizer_instrumentation))
#else
#define UNINSTRUMENTED
#endif

struct z_stream_s;

namespace pooled_gzip::test_support {
namespace {

// Plain ints through the __atomic builtins: std::atomic's members would be
// instrumented calls.
int armed = 0;     // a HeldEntry, taken by the binding it holds
int holding = 0;   // a thread waits in a resolver
int released = 0;  // it may go on

UNINSTRUMENTED void HoldIfArmed(HeldEntry entry) {
  int expected = static_cast<int>(entry);
  if (!__atomic_compare_exchange_n(&armed, &expected, 0, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    return;
  }
  __atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
  while (__atomic_load_n(&released, __ATOMIC_ACQUIRE) == 0) sched_yield();
  __atomic_store_n(&holding, 0, __ATOMIC_RELEASE);
}

// libz's own definition, the one after this program's.
template <typename Fn>
Fn Next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

int DeflateInit2(z_stream_s* stream, int level, int method, int window_bits,
                 int mem_level, int strategy, const char* version, int size) {
  static const auto next =
      Next<int (*)(z_stream_s*, int, int, int, int, int, const char*, int)>(
          "deflateInit2_");
  return next(stream, level, method, window_bits, mem_level, strategy, version,
              size);
}

int DeflateEnd(z_stream_s* stream) {
  static const auto next = Next<int (*)(z_stream_s*)>("deflateEnd");
  return next(stream);
}

int InflateInit2(z_stream_s* stream, int window_bits, const char* version,
                 int size) {
  static const auto next =
      Next<int (*)(z_stream_s*, int, const char*, int)>("inflateInit2_");
  return next(stream, window_bits, version, size);
}

int InflateEnd(z_stream_s* stream) {
  static const auto next = Next<int (*)(z_stream_s*)>("inflateEnd");
  return next(stream);
}

}  // namespace

void HoldNextBinding(HeldEntry entry) {
  __atomic_store_n(&released, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&armed, static_cast<int>(entry), __ATOMIC_RELEASE);
}

bool BindingIsHeld() { return __atomic_load_n(&holding, __ATOMIC_ACQUIRE); }

void ReleaseHeldBinding() { __atomic_store_n(&released, 1, __ATOMIC_RELEASE); }

}  // namespace pooled_gzip::test_support

namespace held = pooled_gzip::test_support;

using DeflateInit2Fn = int (*)(z_stream_s*, int, int, int, int, int,
                               const char*, int);
using EndFn = int (*)(z_stream_s*);
using InflateInit2Fn = int (*)(z_stream_s*, int, const char*, int);

extern "C" {

UNINSTRUMENTED DeflateInit2Fn ResolveDeflateInit2() {
  held::HoldIfArmed(held::HeldEntry::kDeflateInit2);
  return &held::DeflateInit2;
}
UNINSTRUMENTED EndFn ResolveDeflateEnd() {
  held::HoldIfArmed(held::HeldEntry::kDeflateEnd);
  return &held::DeflateEnd;
}
UNINSTRUMENTED InflateInit2Fn ResolveInflateInit2() {
  held::HoldIfArmed(held::HeldEntry::kInflateInit2);
  return &held::InflateInit2;
}
UNINSTRUMENTED EndFn ResolveInflateEnd() {
  held::HoldIfArmed(held::HeldEntry::kInflateEnd);
  return &held::InflateEnd;
}

int deflateInit2_(z_stream_s*, int, int, int, int, int, const char*, int)
    __attribute__((ifunc("ResolveDeflateInit2")));
int deflateEnd(z_stream_s*) __attribute__((ifunc("ResolveDeflateEnd")));
int inflateInit2_(z_stream_s*, int, const char*, int)
    __attribute__((ifunc("ResolveInflateInit2")));
int inflateEnd(z_stream_s*) __attribute__((ifunc("ResolveInflateEnd")));

}  // extern "C"
