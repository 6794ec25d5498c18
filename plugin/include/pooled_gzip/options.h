// Process-wide options: which deflate implementation compresses, at what
// level, which one decompresses, which messages are not worth compressing,
// the cap on a decompressed message, and the pool's caps.

#ifndef POOLED_GZIP_OPTIONS_H_
#define POOLED_GZIP_OPTIONS_H_

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "pooled_gzip/export.h"

namespace pooled_gzip {

// Every backend writes standard gzip and zlib streams that any peer reads,
// and reads everything zlib reads, to the same bytes. A fast decoder reads
// a message in one pass and zlib decides whatever it refuses, so every
// refusal is the zlib backend's (the same status and words). Without
// Options::exact_zlib_refusals a fast decoder may also take a few streams
// zlib refuses, which no encoder writes (docs/backends.md, "Decoders").
enum class Backend {
  // The reference; at its default level, byte-identical to gRPC core.
  kZlib,
  // libdeflate: whole-message compression, faster than zlib for about the
  // same bytes. A message that arrives in several slices is copied into one
  // buffer first.
  kLibdeflate,
  // Intel ISA-L (igzip): streaming, the fastest, for more bytes than zlib.
  kIsal,
};
// docs/backends.md, "Backends", measures each backend and level against
// zlib-6.

// The backend's own default level: zlib 6 (what gRPC core uses),
// libdeflate 6, ISA-L 1.
inline constexpr int kDefaultLevel = -1;

// The decoders of Options::decoder unset, measured the fastest
// (docs/backends.md, "Decoders"). libdeflate cannot take the zlib format in
// one shot (it carries no size to allocate the output by), so ISA-L reads
// deflate.
inline constexpr Backend kDefaultGzipDecoder = Backend::kLibdeflate;
inline constexpr Backend kDefaultDeflateDecoder = Backend::kIsal;

// Deprecated: any string but "gzip", a typo included, yields the deflate
// decoder. Name the decoder of the format you mean, kDefaultGzipDecoder or
// kDefaultDeflateDecoder.
[[deprecated("use kDefaultGzipDecoder, kDefaultDeflateDecoder")]] inline Backend
DefaultDecoder(absl::string_view algorithm) {
  return algorithm == "gzip" ? kDefaultGzipDecoder : kDefaultDeflateDecoder;
}

// How 1.x adds a setting. Options' layout is part of the ABI (programs
// built against 1.0 pass it to Configure and get it from GetOptions), so it
// gains no field before 2.0. A setting a 1.x release adds comes in a struct
// of its own, with a function of its own to apply it and one to read it
// (FooOptions, ConfigureFoo, GetFooOptions), that keep Configure's rules:
// the whole struct at once, at any time, from any thread. Not an overload
// of Configure: Configure({}) would no longer compile. Until a 1.x release
// adds one, Options holds every process-wide setting.
struct Options {
  // The fastest backend whose messages stay within 5% of zlib-6's size on
  // realistic payloads (docs/backends.md, "Choosing one").
  Backend backend = Backend::kLibdeflate;
  // The backend's own levels, higher slower and smaller: zlib 0..9 and
  // libdeflate 0..12 (0 stores), ISA-L 0..3 (all compress). docs/backends.md,
  // "Levels", says what each costs; libdeflate's 10..12 hold far more heap
  // per context, which counts against max_pooled_bytes.
  int level = kDefaultLevel;
  // Which backend inflates received messages, whoever compressed them:
  // every backend reads what zlib reads to the same bytes, so this is a
  // matter of speed only.
  // Unset: the fastest for each format, kDefaultGzipDecoder and
  // kDefaultDeflateDecoder above.
  std::optional<Backend> decoder;
  // Whether a fast decoder refuses exactly what zlib refuses. libdeflate
  // and ISA-L take some bodies that break rules zlib enforces (reserved
  // symbols, over-long code tables, incomplete Huffman codes) and whose
  // checksum and size still match what they decode; no encoder makes them,
  // and the cap and the checksums hold either way. On, a check of ours reads
  // each body before the fast decoder does, which costs up to about half
  // its speed on messages of several blocks (docs/backends.md, "Decoders").
  bool exact_zlib_refusals = false;
  // Opt-in ways to send a message uncompressed without compressing it
  // first, off by default so that the wire stays stock gRPC's. They act on
  // the core codec only: raw mode compresses what it is given.
  // GetTrafficStats() counts the messages as skipped. docs/reference.md,
  // "Skipping what does not compress".
  // A message whose sampled bytes are near-uniform: media, encrypted or
  // already-compressed data, which deflate would shrink by under about 1%.
  bool skip_incompressible = false;
  // A message shorter than this many bytes (0: none).
  size_t min_compress_bytes = 0;
  // The most bytes one received message may inflate to on the core codec
  // (raw mode has its own max_message_bytes). Unset: twice the largest
  // finite max_receive_message_length of the channels and servers set up
  // through pooled_gzip and of every grpc::ServerBuilder server built after
  // the core codec was installed, and at least twice gRPC's default 4 MiB.
  // A message over its receiver's limit but within the cap is inflated, so
  // that gRPC refuses it with its own RESOURCE_EXHAUSTED; a larger one stops
  // at the cap and fails as a decompression error (docs/reference.md,
  // "Limits"). Unlimited receive limits never raise the cap; only this field
  // can: SIZE_MAX is no cap at all, as stock gRPC (a bomb inflates in full).
  std::optional<size_t> max_decompressed_bytes;
  // Idle contexts one thread keeps per kind (writers per backend, format
  // and level; readers per backend, format and exact_zlib_refusals; the
  // core codec's message buffers per direction). A thread compresses one
  // message at a time, so 2 leaves room for a nested use.
  size_t max_idle_contexts_per_thread = 2;
  // Heap that idle contexts, and the buffers the core codec keeps between
  // messages, may hold across all threads. A context returned past it is
  // freed, after parked contexts of other settings are, or pooled without
  // the buffers it keeps. A Configure call frees, before it returns and in
  // living threads too, the idle contexts of the backend, level, decoder or
  // strictness it replaces, and what is idle beyond this cap or
  // max_idle_contexts_per_thread when it lowers them.
  size_t max_pooled_bytes = size_t{64} << 20;
};

// "zlib", "libdeflate", "isal", and back, in any case: for flags and
// configuration files. BackendName gives "unknown" for a Backend cast from
// a number none of its values has, ParseBackend nullopt for another name;
// neither fails otherwise. Both read only constants: callable from any
// thread, also before main().
POOLED_GZIP_EXPORT absl::string_view BackendName(Backend backend);
POOLED_GZIP_EXPORT std::optional<Backend> ParseBackend(absl::string_view name);

// The process-wide settings' one entry point: applies all of `options` at
// once to every message from now on, on every path (core codec, raw
// mode). Safe at any time, from any thread, concurrently with messages and
// other calls, also before channels and servers exist; a message sees one
// call's options whole. Errors: INVALID_ARGUMENT, changing nothing, for a
// backend or decoder that is none of Backend's values (a cast from another
// number), or a level the backend lacks; no other. Every other field takes
// any value of its type: 0 idle contexts or
// pooled bytes pool nothing, a max_decompressed_bytes of 0 lets only empty
// messages through, a min_compress_bytes of SIZE_MAX sends every message on
// the core codec plain. To change one field, start from GetOptions():
//
//   pooled_gzip::Options options = pooled_gzip::GetOptions();
//   options.level = 4;
//   if (absl::Status s = pooled_gzip::Configure(options); !s.ok()) { ... }
POOLED_GZIP_EXPORT absl::Status Configure(const Options& options);

// The options in force (max_decompressed_bytes as set, not as derived):
// one Configure call's whole, even while another runs. Never fails;
// callable from any thread (it takes the settings' lock briefly).
POOLED_GZIP_EXPORT Options GetOptions();

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_OPTIONS_H_
