#include "seam/zlib_seam.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "codec/codec.h"
#include "codec/contiguous_input.h"
#include "codec/core_zlib_parameters.h"
#include "codec/format.h"
#include "codec/settings.h"
#include "codec/stored_stream.h"
#include "glue/codec_log.h"
#include "pool/held_across_fork.h"
#include "seam/activation.h"
#include "seam/real_zlib.h"
#include "seam/served_stream.h"
#include "seam/slot_guard.h"
#include "seam/zlib_handoff.h"

namespace pooled_gzip {
namespace internal {
namespace {

thread_local uint64_t served_compress = 0;
thread_local uint64_t served_decompress = 0;

ServedStream* Served(z_streamp stream) {
  if (stream == nullptr || stream->state == nullptr) return nullptr;
  auto* served = reinterpret_cast<ServedStream*>(stream->state);
  return served->magic == kServedMagic ? served : nullptr;
}

// gRPC's own streams, told apart from any other zlib user's by the
// allocator gRPC opens them with: gpr's, functions of gRPC's own. Another
// caller, on zlib's default allocator or one of its own, may rely on
// output before Z_FINISH, which a served stream does not give, and with
// the static flavour every zlib call of the program comes here. Learned
// from a stream that gRPC's own codec opens while activation watches it;
// a few, for a test's stand-in beside gRPC. Written under the mutex,
// zfree before zalloc; read without it.
constexpr size_t kAllocators = 4;
struct Allocator {
  std::atomic<alloc_func> zalloc{nullptr};
  std::atomic<free_func> zfree{nullptr};
};
Allocator grpc_allocators[kAllocators];
std::mutex& LearningMutex() { return MutexHeldAcrossFork<&LearningMutex>(); }
thread_local bool recognizing = false;

// Whether a stream of gRPC's in this direction is served: once activation
// concluded so, or while it observes gRPC's codec on this thread. Until
// then gRPC's streams are real zlib's, whatever was learned.
bool Serving(bool compressing) {
  return recognizing || StateOf(compressing) == ServingState::kServed;
}

bool GrpcAllocator(alloc_func zalloc, free_func zfree) {
  for (const Allocator& known : grpc_allocators) {
    const alloc_func known_zalloc =
        known.zalloc.load(std::memory_order_acquire);
    if (known_zalloc == nullptr) return false;
    if (known_zalloc == zalloc &&
        known.zfree.load(std::memory_order_relaxed) == zfree) {
      return true;
    }
  }
  return false;
}

// A stream opened with core's parameters (checked by the caller) that is
// gRPC's, built against this zlib.
bool CoresStream(z_streamp stream, const char* version, int stream_size) {
  if (stream == nullptr || version == nullptr ||
      version[0] != ZLIB_VERSION[0] ||
      stream_size != static_cast<int>(sizeof(z_stream))) {
    return false;
  }
  if (GrpcAllocator(stream->zalloc, stream->zfree)) return true;
  if (!recognizing || stream->zalloc == Z_NULL || stream->zfree == Z_NULL) {
    return false;
  }
  ServeStreamsAllocatedBy(stream->zalloc, stream->zfree);
  return GrpcAllocator(stream->zalloc, stream->zfree);
}

void Open(z_streamp stream, ServedStream* served) {
  stream->state = reinterpret_cast<internal_state*>(served);
  stream->msg = nullptr;
  stream->total_in = 0;
  stream->total_out = 0;
  stream->data_type = Z_UNKNOWN;
  stream->adler = served->format == Format::kGzip ? 0 : 1;
}

uint32_t BigEndian32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 |
         b[3];
}

uint32_t LittleEndian32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[3]} << 24 | uint32_t{b[2]} << 16 | uint32_t{b[1]} << 8 |
         b[0];
}

// The check value a complete stream ends with, as zlib leaves it in adler.
uint32_t CheckValueOf(Format format, absl::string_view complete_stream) {
  const char* end = complete_stream.data() + complete_stream.size();
  return format == Format::kGzip ? LittleEndian32(end - 8)
                                 : BigEndian32(end - 4);
}

// The whole input of a served stream at Z_FINISH: what the caller gives
// now, after what was taken before (copied after it only if there was).
absl::string_view WholeInput(ServedStream* served, z_streamp stream) {
  const absl::string_view now(reinterpret_cast<const char*>(stream->next_in),
                              stream->avail_in);
  if (served->taken.empty()) return now;
  served->taken.append(now.data(), now.size());
  return served->taken;
}

// --- Served streams -------------------------------------------------------

// Z_FINISH: the whole stream made in one codec call. Core sends a message
// plain unless its stream is shorter, so a stream that would not be, or a
// message the options skip, is counted as on the core codec path and given
// to the caller as stored blocks, a valid stream that core then declines.
int Make(ServedStream* served, z_streamp stream) {
  const absl::string_view input = WholeInput(served, stream);
  // Activation's message is served whatever the options say: declined or
  // refused, it would read as a direction not served.
  CompressOptions options = ConfiguredOptions(
      served->format, recognizing ? Skipping::kNever : Skipping::kAsConfigured);
  if (recognizing) options.level = kDefaultLevel;
  options.max_output_bytes = input.empty() ? 0 : input.size() - 1;
  StringSink sink(&served->made);
  absl::Status status =
      CompressLogged(absl::MakeConstSpan(&input, 1), options, &sink);
  if (absl::IsResourceExhausted(status) || absl::IsFailedPrecondition(status)) {
    served->made.clear();
    Store(absl::MakeConstSpan(&input, 1), served->format, &sink);
  } else if (!status.ok()) {
    return Fail(served, stream, Z_MEM_ERROR, "no compressor");
  }
  Consume(stream, stream->avail_in);
  stream->adler = CheckValueOf(served->format, served->made);
  return Z_OK;
}

// Z_FINISH: the whole message inflated in one codec call, within the cap.
int Inflate(ServedStream* served, z_streamp stream) {
  const absl::string_view input = WholeInput(served, stream);
  DecompressSettings settings = CurrentDecompressSettings();
  if (recognizing) settings.cap = std::numeric_limits<size_t>::max();
  StringSink sink(&served->made, settings.cap);
  const absl::Status status = DecompressLogged(absl::MakeConstSpan(&input, 1),
                                               served->format, settings, &sink);
  if (absl::IsDataLoss(status)) {
    return Fail(served, stream, Z_DATA_ERROR,
                "corrupt or truncated stream, or bytes after its end");
  }
  if (absl::IsResourceExhausted(status)) {
    return Fail(served, stream, Z_MEM_ERROR, "past pooled_gzip's cap");
  }
  if (!status.ok()) return Fail(served, stream, Z_MEM_ERROR, "no decompressor");
  Consume(stream, stream->avail_in);
  stream->adler = CheckValueOf(served->format, input);
  return Z_OK;
}

// What deflate and inflate share: taking, making once, giving.
int Flate(ServedStream* served, z_streamp stream, int flush) {
  using Phase = ServedStream::Phase;
  if (served->phase == Phase::kZlib) return PassOn(served, stream, flush);
  if (served->phase == Phase::kFailed) return served->error;
  if (flush < Z_NO_FLUSH || flush > Z_TREES || stream->next_out == nullptr ||
      (stream->avail_in != 0 && stream->next_in == nullptr)) {
    return Z_STREAM_ERROR;
  }
  if (served->phase == Phase::kTaking) {
    if (flush != Z_NO_FLUSH && flush != Z_FINISH) {
      const int handed = HandToZlib(served, stream);
      return handed == Z_OK ? PassOn(served, stream, flush) : handed;
    }
    if (stream->avail_out == 0) return Z_BUF_ERROR;
    if (flush == Z_NO_FLUSH) {
      if (stream->avail_in == 0) return Z_BUF_ERROR;  // no progress possible
      served->taken.append(reinterpret_cast<const char*>(stream->next_in),
                           stream->avail_in);
      Consume(stream, stream->avail_in);
      return Z_OK;
    }
    const int made =
        served->compressing ? Make(served, stream) : Inflate(served, stream);
    if (made != Z_OK) return made;
    served->phase = Phase::kGiving;
  } else if (served->compressing && flush != Z_FINISH) {
    return Z_STREAM_ERROR;  // zlib: every call after Z_FINISH finishes
  }
  if (served->phase == Phase::kGiving) {
    if (stream->avail_out == 0) return Z_BUF_ERROR;
    if (!Give(served, stream)) {
      // zlib's inflate says a Z_FINISH that cannot complete is a buffer
      // error; its deflate, that there is more to come.
      return served->compressing || flush != Z_FINISH ? Z_OK : Z_BUF_ERROR;
    }
    served->phase = Phase::kEnded;
  }
  return Z_STREAM_END;
}

int End(z_streamp stream, bool compressing) {
  ServedStream* served = Served(stream);
  if (served == nullptr || served->compressing != compressing) {
    return Z_STREAM_ERROR;
  }
  // zlib's deflateEnd says a stream freed before its end lost data.
  const bool unfinished = served->phase == ServedStream::Phase::kTaking
                              ? !served->taken.empty()
                              : served->phase == ServedStream::Phase::kGiving;
  // Counted once freed here: a stream that reached real zlib's End leaks.
  if (served->phase == ServedStream::Phase::kEnded) {
    ++(compressing ? served_compress : served_decompress);
  }
  stream->state = nullptr;
  Release(served);
  return compressing && unfinished ? Z_DATA_ERROR : Z_OK;
}

}  // namespace

int SeamDeflateInit2(z_streamp stream, int level, int method, int window_bits,
                     int mem_level, int strategy, const char* version,
                     int stream_size) {
  const std::optional<Format> format = FormatOfWindowBits(window_bits);
  if (!format || level != kCoreLevel || method != kCoreMethod ||
      mem_level != kCoreMemLevel || strategy != kCoreStrategy ||
      !Serving(/*compressing=*/true) ||
      !CoresStream(stream, version, stream_size)) {
    return RealZlib().deflate_init(stream, level, method, window_bits,
                                   mem_level, strategy, version, stream_size);
  }
  // Its End must lead here, whatever a late lazy binding wrote.
  KeepSlotsPointed();
  ServedStream* served = NewStream(/*compressing=*/true, *format);
  if (served == nullptr) return Z_MEM_ERROR;
  served->level = level;
  served->window_bits = window_bits;
  served->mem_level = mem_level;
  served->strategy = strategy;
  Open(stream, served);
  return Z_OK;
}

namespace {

// A stream real zlib opened: in a direction served, its opening slot may
// have been written back by a late lazy binding (seam/slot_guard.h).
int RealFlate(z_streamp stream, int flush, bool compressing) {
  if (Serving(compressing)) KeepSlotsPointed();
  return compressing ? RealZlib().deflate(stream, flush)
                     : RealZlib().inflate(stream, flush);
}

}  // namespace

int SeamDeflate(z_streamp stream, int flush) {
  ServedStream* served = Served(stream);
  if (served == nullptr) return RealFlate(stream, flush, /*compressing=*/true);
  if (!served->compressing) return Z_STREAM_ERROR;
  return Flate(served, stream, flush);
}

int SeamDeflateEnd(z_streamp stream) {
  if (Served(stream) == nullptr) return RealZlib().deflate_end(stream);
  return End(stream, /*compressing=*/true);
}

int SeamInflateInit2(z_streamp stream, int window_bits, const char* version,
                     int stream_size) {
  const std::optional<Format> format = FormatOfWindowBits(window_bits);
  if (!format || !Serving(/*compressing=*/false) ||
      !CoresStream(stream, version, stream_size)) {
    return RealZlib().inflate_init(stream, window_bits, version, stream_size);
  }
  KeepSlotsPointed();
  ServedStream* served = NewStream(/*compressing=*/false, *format);
  if (served == nullptr) return Z_MEM_ERROR;
  served->window_bits = window_bits;
  served->cap = CurrentDecompressSettings().cap;
  Open(stream, served);
  return Z_OK;
}

int SeamInflate(z_streamp stream, int flush) {
  ServedStream* served = Served(stream);
  if (served == nullptr) return RealFlate(stream, flush, /*compressing=*/false);
  if (served->compressing) return Z_STREAM_ERROR;
  return Flate(served, stream, flush);
}

int SeamInflateEnd(z_streamp stream) {
  if (Served(stream) == nullptr) return RealZlib().inflate_end(stream);
  return End(stream, /*compressing=*/false);
}

// Each seam function has its zlib function's type.
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  static_assert(std::is_same_v<decltype(served_by), decltype(::name)>);
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY

absl::Span<const ZlibEntry> ZlibEntries() {
  static const std::vector<ZlibEntry>* const entries = [] {
    const ZlibFunctions& zlib = RealZlib();
    return new std::vector<ZlibEntry>{
#define POOLED_GZIP_ZLIB_ENTRY(name, role, field, served_by, params, args) \
  {#name, ZlibEntryRole::role, reinterpret_cast<void*>(&served_by),        \
   reinterpret_cast<const void*>(zlib.field)},
#include "seam/zlib_entries.def"
#undef POOLED_GZIP_ZLIB_ENTRY
    };
  }();
  return *entries;
}

void ServeStreamsAllocatedBy(alloc_func zalloc, free_func zfree) {
  const std::lock_guard<std::mutex> lock(LearningMutex());
  if (GrpcAllocator(zalloc, zfree)) return;
  for (Allocator& slot : grpc_allocators) {
    if (slot.zalloc.load(std::memory_order_relaxed) != nullptr) continue;
    slot.zfree.store(zfree, std::memory_order_relaxed);
    slot.zalloc.store(zalloc, std::memory_order_release);
    return;
  }
}

RecognizingGrpcStreams::RecognizingGrpcStreams() : outer_(recognizing) {
  recognizing = true;
}

RecognizingGrpcStreams::~RecognizingGrpcStreams() { recognizing = outer_; }

uint64_t StreamsServedOnThisThread(bool compressing) {
  return compressing ? served_compress : served_decompress;
}

}  // namespace internal
}  // namespace pooled_gzip
