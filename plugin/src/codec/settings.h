// The one owner of the process-wide settings, and of the receive limits
// the default cap derives from. A message reads what its direction needs as
// one atomic word, so it sees the settings of one Configure call whole.
// Writers are serialised, so concurrent changes are never lost.

#ifndef POOLED_GZIP_SRC_CODEC_SETTINGS_H_
#define POOLED_GZIP_SRC_CODEC_SETTINGS_H_

#include <cstddef>
#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "codec/backend.h"
#include "codec/format.h"
#include "pool/pool_books.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip {
namespace internal {

// gRPC's default max_receive_message_length.
inline constexpr size_t kGrpcDefaultMaxReceive = size_t{4} << 20;

// Without an explicit cap, a message up to this many times the largest
// receive limit is inflated, so that gRPC refuses it in its own words.
inline constexpr size_t kDerivedCapFactor = 2;

// The settings below carry no defaults of their own: they are made from an
// Options (CompressSettingsOf, DecompressSettingsOf), a fresh process's
// from Options{}.
struct CompressSettings {
  // The writer pool's generation, read just before the rest (Acquire).
  uint64_t settings_generation = 0;
  Backend backend;
  int level;  // as configured; kDefaultLevel: the backend's
  bool skip_incompressible;
  size_t min_compress_bytes;
};
CompressSettings CurrentCompressSettings();

struct DecompressSettings {
  // The reader pool's generation, read just before the rest (Acquire).
  uint64_t settings_generation = 0;
  // The most bytes one message may inflate to; SIZE_MAX: no cap.
  size_t cap;
  Backend gzip_decoder;
  Backend deflate_decoder;
  Strictness strictness;
  // zlib's readers are of one kind whatever the strictness.
  InflaterKey ReaderFor(Format format) const {
    const Backend backend =
        format == Format::kGzip ? gzip_decoder : deflate_decoder;
    return {backend, format,
            backend == Backend::kZlib ? Strictness::kDecoder : strictness};
  }
};
DecompressSettings CurrentDecompressSettings();

// The decoder of `format` when Options::decoder is unset (options.h).
constexpr Backend DefaultDecoder(Format format) {
  return format == Format::kGzip ? kDefaultGzipDecoder : kDefaultDeflateDecoder;
}

// The largest receive limit noted allows messages up to this cap.
constexpr size_t DerivedCap(size_t noted_limit) {
  return noted_limit > std::numeric_limits<size_t>::max() / kDerivedCapFactor
             ? std::numeric_limits<size_t>::max()
             : kDerivedCapFactor * noted_limit;
}

// What `options` make of each direction's settings and of the pools' limits,
// with `noted_limit` the largest receive limit noted (NotedReceiveLimit).
constexpr CompressSettings CompressSettingsOf(const Options& options) {
  return {0, options.backend, options.level, options.skip_incompressible,
          options.min_compress_bytes};
}
constexpr DecompressSettings DecompressSettingsOf(const Options& options,
                                                  size_t noted_limit) {
  return {0, options.max_decompressed_bytes.value_or(DerivedCap(noted_limit)),
          options.decoder.value_or(DefaultDecoder(Format::kGzip)),
          options.decoder.value_or(DefaultDecoder(Format::kDeflate)),
          options.exact_zlib_refusals ? Strictness::kExactZlibRefusals
                                      : Strictness::kDecoder};
}
constexpr PoolLimits PoolLimitsOf(const Options& options) {
  return {options.max_idle_contexts_per_thread, options.max_pooled_bytes};
}

// Configure and GetOptions. INVALID_ARGUMENT, changing nothing, for a
// backend or decoder of no Backend value, or a level the backend lacks.
absl::Status ApplyOptions(const Options& options);
Options AppliedOptions();

// A channel's or server's max_receive_message_length. Unlimited (negative)
// ones are ignored: they would remove every server's cap.
void NoteReceiveLimit(int max_receive_message_length);

// The largest noted, at least gRPC's default.
size_t NotedReceiveLimit();

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_SETTINGS_H_
