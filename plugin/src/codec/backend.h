// What a deflate implementation provides to the codec: a reusable writer
// and reader per stream format. One file per backend implements these;
// the pools recycle them without knowing which backend they hold.

#ifndef POOLED_GZIP_SRC_CODEC_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_BACKEND_H_

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "codec/chunk_sink.h"
#include "codec/format.h"
#include "pooled_gzip/options.h"

namespace pooled_gzip {
namespace internal {

using Pieces = absl::Span<const absl::string_view>;

// What the pools ask of a writer or a reader, whichever its backend.
class PooledContext {
 public:
  virtual ~PooledContext() = default;
  // Prepares for the next message; false if it cannot be reused.
  virtual bool Reset() = 0;
  // Heap owned right now, for the pool's byte cap.
  virtual size_t HeapBytes() const = 0;
  // Frees the buffers kept from message to message (sized by the largest
  // message so far), when the pool's byte cap cannot hold them; false if
  // there were none.
  virtual bool FreeBuffers() { return false; }
};

// Compresses one message at a time into one complete stream.
class Deflater : public PooledContext {
 public:
  // Compresses the concatenation of `input`. RESOURCE_EXHAUSTED as soon as
  // the stream would exceed `max_output_bytes`, which is how callers stop
  // early on incompressible data; the deflater stays reusable after it.
  // Other errors make it unusable. On any error the sink may hold partial
  // output, which the caller drops.
  virtual absl::Status Deflate(Pieces input, size_t max_output_bytes,
                               ChunkSink* sink) = 0;
};

// Inflates exactly one complete stream per message.
class Inflater : public PooledContext {
 public:
  // DATA_LOSS for corrupt or truncated input or bytes after the end of the
  // stream; RESOURCE_EXHAUSTED as soon as the output would exceed
  // `max_output_bytes`, having asked the sink for at most one byte more.
  virtual absl::Status Inflate(Pieces input, size_t max_output_bytes,
                               ChunkSink* sink) = 0;
};

// Contexts of different keys never mix in the pool.
struct DeflaterKey {
  Backend backend = Backend::kZlib;
  Format format = Format::kGzip;
  int level = 0;  // resolved: never kDefaultLevel
  friend bool operator==(const DeflaterKey& a, const DeflaterKey& b) {
    return a.backend == b.backend && a.format == b.format && a.level == b.level;
  }
};

// What a fast reader may accept beyond what zlib accepts
// (Options::exact_zlib_refusals). Either way it refuses with zlib's answer:
// zlib decides every message the fast decoder does not finish.
enum class Strictness {
  // The fast decoder's own rules, in one pass over the message.
  kDecoder,
  // zlib's: a pass of ours over the body first (codec/zlib_rules.h).
  kZlib,
};

struct InflaterKey {
  Backend backend = Backend::kZlib;
  Format format = Format::kGzip;
  Strictness strictness = Strictness::kDecoder;
  friend bool operator==(const InflaterKey& a, const InflaterKey& b) {
    return a.backend == b.backend && a.format == b.format &&
           a.strictness == b.strictness;
  }
};

// The levels of a backend, and the one kDefaultLevel stands for.
struct LevelRange {
  int min;
  int max;
  int default_level;
};

// zlib's levels are 0..9, 6 its own default; libdeflate's 0..12, 6 its own
// default; ISA-L's 0..3, all of which compress, 1 by default. A Backend
// cast from a number none of its values has has none (min > max).
constexpr LevelRange LevelsOf(Backend backend) {
  switch (backend) {
    case Backend::kZlib:
      return {0, 9, 6};
    case Backend::kLibdeflate:
      return {0, 12, 6};
    case Backend::kIsal:
      return {0, 3, 1};
  }
  return {0, -1, 0};
}

// The level `level` stands for on `backend` (kDefaultLevel resolved), or
// INVALID_ARGUMENT if the backend has no such level.
absl::StatusOr<int> ResolveLevel(Backend backend, int level);

// False for a Backend cast from a number none of its values has.
bool KnownBackend(Backend backend);

// The one factory of writers and readers, for the pools, the zlib
// fallback and tests alike. Null if the backend cannot allocate its state.
std::unique_ptr<Deflater> NewDeflater(const DeflaterKey& key);
std::unique_ptr<Inflater> NewInflater(const InflaterKey& key);

// What each backend file hands the factory: how to make its writer (of a
// resolved level) and its reader; see MakerFor in codec/backend_maker.h.
// Each is defined constexpr, so that the factory works from static
// initialisers too.
struct BackendMaker {
  std::unique_ptr<Deflater> (*new_deflater)(Format format, int level);
  std::unique_ptr<Inflater> (*new_inflater)(Format format,
                                            Strictness strictness);
};

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_BACKEND_H_
