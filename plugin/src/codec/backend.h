// A deflate backend's reusable writers and readers, as the codec and its
// pools see them, and the one factory that makes them.

#ifndef POOLED_GZIP_SRC_CODEC_BACKEND_H_
#define POOLED_GZIP_SRC_CODEC_BACKEND_H_

#include <cstddef>
#include <memory>
#include <new>

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
  // Frees the buffers kept between messages, for the byte cap; false if none.
  virtual bool FreeBuffers() { return false; }
};

class Deflater : public PooledContext {
 public:
  // Compresses the concatenation of `input` into one complete stream;
  // RESOURCE_EXHAUSTED as soon as that would exceed `max_output_bytes`
  // (the deflater stays reusable); other errors make it unusable. On any
  // error the sink may hold partial output, which the caller drops.
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

struct DeflaterKey {
  Backend backend = Backend::kZlib;
  Format format = Format::kGzip;
  int level = 0;  // resolved: never kDefaultLevel
  friend bool operator==(const DeflaterKey& a, const DeflaterKey& b) {
    return a.backend == b.backend && a.format == b.format && a.level == b.level;
  }
};

// Whose rules a fast reader keeps (Options::exact_zlib_refusals).
enum class Strictness {
  kDecoder,            // the fast decoder's own rules, in one pass
  kExactZlibRefusals,  // zlib's: a pass of ours over the body first
                       // (zlib_rules.h)
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

struct LevelRange {
  int min;
  int max;
  int default_level;  // what kDefaultLevel stands for
};

// The backend's levels (codec/backend_table.h); a Backend of none of its
// values has none (min > max).
LevelRange LevelsOf(Backend backend);

// The level `level` stands for on `backend` (kDefaultLevel resolved), or
// INVALID_ARGUMENT if the backend has no such level.
absl::StatusOr<int> ResolveLevel(Backend backend, int level);

// False for a Backend cast from a number none of its values has.
bool KnownBackend(Backend backend);

// Null if the backend cannot allocate its state.
std::unique_ptr<Deflater> NewDeflater(const DeflaterKey& key);
std::unique_ptr<Inflater> NewInflater(const InflaterKey& key);

// Each backend file's, for the table only (others call NewDeflater and
// NewInflater); constexpr so that the factory works before main().
struct BackendMaker {
  std::unique_ptr<Deflater> (*new_deflater)(Format format, int level);
  std::unique_ptr<Inflater> (*new_inflater)(Format format,
                                            Strictness strictness);
};

// A backend's writer or reader, allocated without throwing and made ready
// by its `bool Init()`; null if either fails.
template <typename Base, typename T, typename... Args>
std::unique_ptr<Base> NewReady(Args... args) {
  std::unique_ptr<T> object(new (std::nothrow) T(args...));
  if (object == nullptr || !object->Init()) return nullptr;
  return object;
}

// For a writer `D(format, level)` and a reader `I(format, strictness)`.
template <typename D, typename I>
constexpr BackendMaker MakerFor() {
  return {&NewReady<Deflater, D, Format, int>,
          &NewReady<Inflater, I, Format, Strictness>};
}

}  // namespace internal
}  // namespace pooled_gzip

#endif  // POOLED_GZIP_SRC_CODEC_BACKEND_H_
