// Wrappers around the zlib entry points that allocate a stream's state, so
// that the malloc interposer can tell zlib state from every other
// allocation. Defined in the executable, they take precedence over libz for
// the pooled codec (linked statically) and for libgrpc alike; each one marks
// the calling thread and forwards to the real function found with
// dlsym(RTLD_NEXT).
//
// deflate() never allocates and the End/Reset calls only free, so these
// three are enough: deflateInit2_ allocates the whole deflate state
// (about 256 KiB at memLevel 8, windowBits 15), inflateInit2_ the inflate
// state, and inflate() the 32 KiB window on the stream's first use.

#include <dlfcn.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>

#include "alloc_counter.h"

namespace pooled_gzip::bench {
namespace {

using internal::ZlibScope;

template <typename Function>
Function* RealFunction(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "zlib_probe: cannot find the real %s\n", name);
    std::abort();
  }
  return reinterpret_cast<Function*>(symbol);
}

// Restores the previous scope on exit, so nesting cannot lose track.
class ScopedZlibScope {
 public:
  explicit ScopedZlibScope(ZlibScope scope)
      : previous_(internal::GetZlibScope()) {
    internal::SetZlibScope(scope);
  }
  ~ScopedZlibScope() { internal::SetZlibScope(previous_); }

 private:
  ZlibScope previous_;
};

}  // namespace
}  // namespace pooled_gzip::bench

using pooled_gzip::bench::RealFunction;
using pooled_gzip::bench::ScopedZlibScope;
using pooled_gzip::bench::internal::ZlibScope;

extern "C" {

int deflateInit2_(z_streamp stream, int level, int method, int window_bits,
                  int mem_level, int strategy, const char* version,
                  int stream_size) {
  using Function = int(z_streamp, int, int, int, int, int, const char*, int);
  static Function* const real = RealFunction<Function>("deflateInit2_");
  pooled_gzip::bench::internal::CountDeflateInit();
  ScopedZlibScope scope(ZlibScope::kDeflate);
  return real(stream, level, method, window_bits, mem_level, strategy, version,
              stream_size);
}

int inflateInit2_(z_streamp stream, int window_bits, const char* version,
                  int stream_size) {
  using Function = int(z_streamp, int, const char*, int);
  static Function* const real = RealFunction<Function>("inflateInit2_");
  pooled_gzip::bench::internal::CountInflateInit();
  ScopedZlibScope scope(ZlibScope::kInflate);
  return real(stream, window_bits, version, stream_size);
}

int inflate(z_streamp stream, int flush) {
  using Function = int(z_streamp, int);
  static Function* const real = RealFunction<Function>("inflate");
  ScopedZlibScope scope(ZlibScope::kInflate);
  return real(stream, flush);
}

}  // extern "C"
