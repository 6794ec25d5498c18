// Codec micro-benchmarks: gRPC core's per-message zlib stream against the
// pooled codec of every backend, at several levels, per payload kind and
// size, for compress and decompress.
//
// Names are "<op>/<kind>/<size in bytes>/<impl>[/<tail>]". Compressing,
// impl is "stock" (a replica of core's path) or "<backend>-<level>"
// (zlib-6, libdeflate-5, isal-1, ...). Decompressing, it is "stock" (core's
// path on zlib-6 gzip, what a stock peer sends) or
// "<decoder>@<encoder>-<level>": the pooled decoder of one backend on the
// gzip another backend wrote at that level, e.g. "isal@zlib-6" (a stock
// peer's message) or "isal@isal-1" (a peer of the same setup). On proto at
// 1 KiB, 64 KiB and 1 MiB every decoder meets every default encoder, in
// gzip and in the zlib format (gRPC's "deflate", tail "/deflate"); other
// cells have the decoders on zlib-6 and each fast backend on its own
// output.
//
// On those same cells the default setups (stock, zlib-6, libdeflate-6,
// isal-1) also run with the input as a server meets it: tail "/sliced" is
// the slice layout core hands the codec (SlicedLengths), "/cold" a rotation
// over distinct messages too large for the caches (Feed): twice the listed
// last-level cache, at most 128 MiB, or --cold_feed_bytes. Without a tail,
// the input is one slice of the same message every time, in cache.
// --cold_contexts=N has a cold feed's messages go to N writers or readers in
// turn, as on a sync server whose many threads each keep their own, so that
// a context is cold too when its next message comes (default 1: the
// calling thread's pooled one). --sizes=<bytes>,... replaces the sizes, and
// makes every cell a detail cell.
//
// Besides time per op and bytes/s, each benchmark reports heap traffic per
// op from the malloc interposer linked into this binary, how much of it was
// zlib state, the output size, and the heap one pooled context of that
// backend and level holds (what the pool keeps per thread and kind).
//
// Payload kinds are all of examples/payloads.h unless --payloads=<kind>,...
// names fewer.

#include <benchmark/benchmark.h>
#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "alloc_counter.h"
#include "codec/backend.h"
#include "codec/backend_table.h"
#include "codec/codec.h"
#include "codec/settings.h"
#include "codec_paths.h"
#include "direct_allocator.h"
#include "glue/slice_buffers.h"
#include "message_codec.h"
#include "payloads.h"

namespace pooled_gzip::bench {
namespace {

using pooled_gzip::internal::CompressOptions;
using pooled_gzip::internal::CompressToString;
using pooled_gzip::internal::DecompressToString;
using pooled_gzip::internal::Format;
using pooled_gzip::internal::StringSink;

enum class Op { kCompress, kDecompress };

const char* OpName(Op op) {
  return op == Op::kCompress ? "compress" : "decompress";
}

// How a benchmark's input reaches the codec.
enum class Feed {
  // One slice of the same message every time: input, output and the
  // codec's tables stay in cache. The main figures.
  kWarm,
  // The slices gRPC core hands the codec for a message of that size
  // (SlicedLengths).
  kSliced,
  // One slice, rotating over distinct messages of the kind and size, each
  // output kept until its message comes round again; together they are
  // twice the last-level cache, so every message's input and output come
  // from memory, as on a server between messages of many calls. That the
  // messages differ matters apart from the caches: at 1 KiB most of the
  // extra time is there already with 16 distinct messages, all in L2 (a
  // loop over one message lets the branch predictors learn it).
  kCold,
};

// A backend at a level: what wrote a decompress benchmark's input.
struct Encoder {
  Backend backend;
  int level;
};

constexpr Encoder kZlib6{Backend::kZlib, 6};
constexpr Encoder kLibdeflate6{Backend::kLibdeflate, 6};
constexpr Encoder kIsal1{Backend::kIsal, 1};

std::string EncoderName(const Encoder& encoder) {
  return absl::StrCat(pooled_gzip::BackendName(encoder.backend), "-",
                      encoder.level);
}

// One way of (de)compressing: core's path, or the pooled codec with a
// backend and, compressing, a level.
struct Impl {
  bool stock = false;
  // Compressing, the backend that compresses; decompressing, the decoder.
  Backend backend = Backend::kZlib;
  int level = kDefaultLevel;  // resolved; unused for decompression
  // Decompressing: what wrote the input, in which format (stock: zlib-6
  // gzip, what core itself sends).
  Encoder encoder = kZlib6;
  Format format = Format::kGzip;
  Feed feed = Feed::kWarm;

  Impl With(Feed other) const {
    Impl impl = *this;
    impl.feed = other;
    return impl;
  }
};

Impl StockImpl() { return Impl{true}; }

Impl CompressImpl(Backend backend, int level) {
  Impl impl;
  impl.backend = backend;
  impl.level = level;
  return impl;
}

Impl DecompressImpl(Backend decoder, const Encoder& encoder,
                    Format format = Format::kGzip) {
  Impl impl;
  impl.backend = decoder;
  impl.encoder = encoder;
  impl.format = format;
  return impl;
}

// Everything after the size in the benchmark's name.
std::string ImplName(Op op, const Impl& impl) {
  std::string name;
  if (impl.stock) {
    name = "stock";
  } else if (op == Op::kCompress) {
    name =
        absl::StrCat(pooled_gzip::BackendName(impl.backend), "-", impl.level);
  } else {
    name = absl::StrCat(pooled_gzip::BackendName(impl.backend), "@",
                        EncoderName(impl.encoder));
  }
  if (impl.format == Format::kDeflate) absl::StrAppend(&name, "/deflate");
  if (impl.feed == Feed::kSliced) absl::StrAppend(&name, "/sliced");
  if (impl.feed == Feed::kCold) absl::StrAppend(&name, "/cold");
  return name;
}

// The message sizes run, and whether every cell is a detail cell (--sizes).
std::vector<size_t> sizes;
bool every_cell_detailed = false;

// How many contexts a cold feed rotates over (--cold_contexts).
size_t cold_contexts = 1;

// Where the decoder matrix and the sliced and cold feeds run: the target
// payload at the sizes the report weighs. Everywhere would more than
// double the suite's time.
bool IsDetailCell(payloads::Kind kind, size_t size) {
  return every_cell_detailed ||
         (kind == payloads::Kind::kRecords &&
          (size == 1024 || size == 64 * 1024 || size == 1024 * 1024));
}

std::vector<size_t> SlicedLengths(Op op, size_t length) {
  return CoreSliceLengths(
      op == Op::kCompress ? Direction::kSent : Direction::kReceived, length);
}

// The levels measured: zlib's fastest, core's and smallest; libdeflate's
// around zlib-6's ratio, where the default's choice lies, and its ends
// short of 10-12 (much slower and far larger per context; docs/backends.md,
// "Levels"); every ISA-L level. On the detail cells, the default setups
// sliced (where that is not one slice) and cold.
std::vector<Impl> CompressImpls(payloads::Kind kind, size_t size) {
  std::vector<Impl> impls = {StockImpl()};
  for (int level : {1, 6, 9}) {
    impls.push_back(CompressImpl(Backend::kZlib, level));
  }
  for (int level : {1, 4, 5, 6, 7, 9}) {
    impls.push_back(CompressImpl(Backend::kLibdeflate, level));
  }
  for (int level : {0, 1, 2, 3}) {
    impls.push_back(CompressImpl(Backend::kIsal, level));
  }
  if (!IsDetailCell(kind, size)) return impls;
  const Impl defaults[] = {StockImpl(), CompressImpl(Backend::kZlib, 6),
                           CompressImpl(Backend::kLibdeflate, 6),
                           CompressImpl(Backend::kIsal, 1)};
  for (Feed feed : {Feed::kSliced, Feed::kCold}) {
    if (feed == Feed::kSliced &&
        SlicedLengths(Op::kCompress, size).size() == 1) {
      continue;
    }
    for (const Impl& impl : defaults) impls.push_back(impl.With(feed));
  }
  return impls;
}

// Stock and each decoder on zlib-6 (a stock peer's message), each fast
// backend on its own default output; on the detail cells every decoder on
// every default encoder in both formats, then what the default setups
// do with what they receive (the library's gzip decoder), sliced and cold,
// and the default sender's deflate, cold.
std::vector<Impl> DecompressImpls(payloads::Kind kind, size_t size) {
  std::vector<Impl> impls = {StockImpl()};
  if (!IsDetailCell(kind, size)) {
    for (Backend decoder : pooled_gzip::internal::kAllBackends) {
      impls.push_back(DecompressImpl(decoder, kZlib6));
    }
    impls.push_back(DecompressImpl(Backend::kLibdeflate, kLibdeflate6));
    impls.push_back(DecompressImpl(Backend::kIsal, kIsal1));
    return impls;
  }
  for (Format format : {Format::kGzip, Format::kDeflate}) {
    for (const Encoder& encoder : {kZlib6, kLibdeflate6, kIsal1}) {
      for (Backend decoder : pooled_gzip::internal::kAllBackends) {
        impls.push_back(DecompressImpl(decoder, encoder, format));
      }
    }
  }
  // What a server of each default setup does with what it receives: the
  // library's gzip decoder, whoever encoded.
  const Backend decoder = pooled_gzip::internal::DefaultDecoder(Format::kGzip);
  const Impl defaults[] = {StockImpl(), DecompressImpl(decoder, kZlib6),
                           DecompressImpl(decoder, kLibdeflate6),
                           DecompressImpl(decoder, kIsal1)};
  for (Feed feed : {Feed::kSliced, Feed::kCold}) {
    for (const Impl& impl : defaults) impls.push_back(impl.With(feed));
  }
  // And a deflate message from the default sender, cold: by the library's
  // deflate decoder, and by zlib, which every fast decoder falls back to.
  for (Backend deflate_decoder :
       {pooled_gzip::internal::DefaultDecoder(Format::kDeflate),
        Backend::kZlib}) {
    impls.push_back(
        DecompressImpl(deflate_decoder, kLibdeflate6, Format::kDeflate)
            .With(Feed::kCold));
  }
  return impls;
}

// Minor page faults of the calling thread so far. Stock's cost for small
// messages is mostly page faults: glibc trims the freed 256 KiB of zlib
// state off the heap top and faults it back in on the next message. Whether
// that happens depends on where the state lands in the heap, so the count is
// reported next to the time.
uint64_t ThreadMinorFaults() {
  rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<uint64_t>(usage.ru_minflt);
}

// One message through one path into `out`. Everything a message costs in
// gRPC is inside but the output's release, which the caller times too.
// False on error.
bool RunOp(Op op, const Impl& impl, const CompressOptions& options,
           grpc_slice_buffer* input, grpc_slice_buffer* out) {
  if (op == Op::kDecompress) {
    return impl.stock
               ? StockDecompress(input, out)
               : PooledDecompress(*input, impl.format, impl.backend, out);
  }
  if (!impl.stock) return PooledCompress(*input, options, out);
  // false only means "did not shrink, sent as it is", as in core.
  StockCompress(input, out);
  return true;
}

// The writers or readers a cold feed rotates over with --cold_contexts: made
// as the pool makes them, and reset after each message as the pool does.
// Only the pool's checkout and the traffic counters are left out.
class ContextRing {
 public:
  ContextRing(Op op, const Impl& impl, size_t count) : op_(op) {
    for (size_t i = 0; i < count; ++i) {
      if (op == Op::kCompress) {
        writers_.push_back(pooled_gzip::internal::NewDeflater(
            {impl.backend, Format::kGzip, impl.level}));
        ok_ = ok_ && writers_.back() != nullptr;
      } else {
        readers_.push_back(
            pooled_gzip::internal::NewInflater({impl.backend, impl.format}));
        ok_ = ok_ && readers_.back() != nullptr;
      }
    }
  }

  bool ok() const { return ok_; }

  // One message through the next context in turn; false on error.
  bool Run(const grpc_slice_buffer& input, grpc_slice_buffer* out) {
    pooled_gzip::internal::SliceBufferSink sink(out);
    const auto pieces = pooled_gzip::internal::ViewsOf(input);
    constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();
    pooled_gzip::internal::PooledContext* context;
    absl::Status status;
    if (op_ == Op::kCompress) {
      context = writers_[next_].get();
      status = writers_[next_]->Deflate(pieces, kNoLimit, &sink);
    } else {
      context = readers_[next_].get();
      status = readers_[next_]->Inflate(pieces, kNoLimit, &sink);
    }
    next_ =
        next_ + 1 == std::max(writers_.size(), readers_.size()) ? 0 : next_ + 1;
    return context->Reset() && status.ok();
  }

 private:
  Op op_;
  std::vector<std::unique_ptr<pooled_gzip::internal::Deflater>> writers_;
  std::vector<std::unique_ptr<pooled_gzip::internal::Inflater>> readers_;
  size_t next_ = 0;
  bool ok_ = true;
};

CompressOptions OptionsOf(const Impl& impl) {
  CompressOptions options;
  options.backend = impl.backend;
  options.level = impl.level;
  return options;
}

// Runs one message with a fresh output, released at once: returns the bytes
// produced (wire bytes for compress), or -1 on error. `result` receives
// them, flattened, when not null.
int64_t RunOnce(Op op, const Impl& impl, const CompressOptions& options,
                grpc_slice_buffer* input, std::string* result = nullptr) {
  grpc_slice_buffer out;
  grpc_slice_buffer_init(&out);
  const bool ok = RunOp(op, impl, options, input, &out);
  const int64_t produced = ok ? static_cast<int64_t>(out.length) : -1;
  if (ok && result != nullptr) *result = test_support::Flatten(out);
  grpc_slice_buffer_destroy(&out);
  return produced;
}

// Checks that `op` really did its job on `payload` before timing it: a
// benchmark of a broken path must fail, not report a fast number.
bool RoundTripOk(Op op, const Impl& impl, grpc_slice_buffer* input,
                 absl::string_view payload) {
  std::string produced;
  if (RunOnce(op, impl, OptionsOf(impl), input, &produced) < 0) return false;
  if (op == Op::kDecompress) return produced == payload;
  if (impl.stock && produced == payload) return true;  // no gain
  std::string inflated;
  return DecompressToString(produced, Format::kGzip, payload.size(), &inflated)
             .ok() &&
         inflated == payload;
}

// The heap one context holds after a message of `input` went through it,
// by the backend's own count (zlib's through its allocator hooks), which is
// what the pool's byte cap weighs. 0 for stock, which keeps nothing.
double ContextHeapBytes(Op op, const Impl& impl, absl::string_view input) {
  if (impl.stock) return 0;
  const absl::string_view pieces[] = {input};
  std::string out;
  StringSink sink(&out);
  if (op == Op::kCompress) {
    auto deflater = pooled_gzip::internal::NewDeflater(
        {impl.backend, Format::kGzip, impl.level});
    if (deflater == nullptr ||
        !deflater->Deflate(pieces, std::numeric_limits<size_t>::max(), &sink)
             .ok()) {
      return 0;
    }
    return static_cast<double>(deflater->HeapBytes());
  }
  auto inflater =
      pooled_gzip::internal::NewInflater({impl.backend, impl.format});
  if (inflater == nullptr ||
      !inflater->Inflate(pieces, std::numeric_limits<size_t>::max(), &sink)
           .ok()) {
    return 0;
  }
  return static_cast<double>(inflater->HeapBytes());
}

// Where Linux lists the last-level cache one core sees (sysconf's figure is
// the whole package's, which on a chiplet CPU no core has).
constexpr char kListedCacheFile[] =
    "/sys/devices/system/cpu/cpu0/cache/index3/size";

// The cold feed never exceeds this, whatever the machine lists: a virtual
// CPU may list hundreds of MiB of cache that no core has (480 MiB was
// seen), and a feed of twice that takes minutes to make and encode. Twice
// 64 MiB is past any one core's last-level cache today.
constexpr size_t kMaxColdBytes = size_t{128} << 20;

// Twice the cache listed in `listed_file` (or twice 32 MiB where it does
// not say), at most kMaxColdBytes.
size_t ColdBytesFor(const char* listed_file) {
  size_t kib = 32 * 1024;
  if (FILE* file = std::fopen(listed_file, "r")) {
    unsigned long listed = 0;
    if (std::fscanf(file, "%luK", &listed) == 1 && listed > 0) kib = listed;
    std::fclose(file);
  }
  return std::min(2 * kib * 1024, kMaxColdBytes);
}

// How many bytes of distinct messages a cold feed rotates over, set once
// in main: from the listed cache, or --cold_feed_bytes.
size_t cold_bytes = 0;

size_t ColdBytes() { return cold_bytes; }

// Messages laid end to end in memory straight from the kernel
// (direct_allocator.h): keeping tens of thousands of them for a cold feed
// then leaves malloc's heap as the code under test makes it, and the heap
// decides whether glibc trims stock's zlib state (ThreadMinorFaults).
class MessageSet {
 public:
  void Add(absl::string_view message) {
    bytes_.append(message.data(), message.size());
    ends_.push_back(bytes_.size());
  }
  size_t size() const { return ends_.size(); }
  absl::string_view operator[](size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return absl::string_view(bytes_).substr(begin, ends_[i] - begin);
  }

 private:
  DirectString bytes_;
  std::vector<size_t, DirectAllocator<size_t>> ends_;
};

// The encoded form of `payload` that `impl` decompresses, or nullopt if
// it could not be made. Encoded even for incompressible data (core would
// not have compressed it, but a peer may).
std::optional<std::string> EncodedInput(const Impl& impl,
                                        absl::string_view payload) {
  CompressOptions options;
  options.backend = impl.encoder.backend;
  options.level = impl.encoder.level;
  options.format = impl.format;
  std::string encoded;
  if (!CompressToString(payload, options, &encoded).ok()) return std::nullopt;
  return encoded;
}

// What a benchmark feeds: its payloads and, message by message, what the
// op takes (the payload, or its encoded form).
struct Messages {
  const MessageSet* payloads = nullptr;
  const MessageSet* inputs = nullptr;
};

// The first `count` payloads of `kind` and `size` (seeds 0, 1, ...) and, for
// decompression, what `impl`'s encoder makes of them; inputs empty if they
// could not be made.
void MakeMessages(Op op, payloads::Kind kind, size_t size, const Impl& impl,
                  size_t count, MessageSet* payload_set,
                  MessageSet* input_set) {
  if (payload_set->size() == 0) {
    for (size_t i = 0; i < count; ++i) {
      payload_set->Add(payloads::Make(kind, size, static_cast<uint32_t>(i)));
    }
  }
  if (op == Op::kCompress || input_set->size() != 0) return;
  for (size_t i = 0; i < payload_set->size(); ++i) {
    std::optional<std::string> encoded = EncodedInput(impl, (*payload_set)[i]);
    if (!encoded) {
      *input_set = MessageSet();
      return;
    }
    input_set->Add(*encoded);
  }
}

// The messages of a cold feed, made once per process and shared by the
// benchmarks that feed the same ones: Google Benchmark calls a benchmark
// function again for every run and repetition, and tens of thousands of
// messages take seconds to make and encode.
Messages ColdMessages(Op op, payloads::Kind kind, size_t size,
                      const Impl& impl) {
  using PayloadKey = std::tuple<payloads::Kind, size_t>;
  using InputKey = std::tuple<payloads::Kind, size_t, Backend, int, Format>;
  static auto* payload_sets = new std::map<PayloadKey, MessageSet>;
  static auto* input_sets = new std::map<InputKey, MessageSet>;
  MessageSet& payload_set = (*payload_sets)[{kind, size}];
  MessageSet& input_set = (*input_sets)[{kind, size, impl.encoder.backend,
                                         impl.encoder.level, impl.format}];
  const size_t count =
      std::max<size_t>(2, ColdBytes() / std::max<size_t>(size, 1));
  MakeMessages(op, kind, size, impl, count, &payload_set, &input_set);
  if (op == Op::kCompress) return {&payload_set, &payload_set};
  return {&payload_set, &input_set};
}

using SliceBuffers =
    std::vector<grpc_slice_buffer, DirectAllocator<grpc_slice_buffer>>;

// `count` initialised slice buffers, released with the set.
class SliceBufferSet {
 public:
  explicit SliceBufferSet(size_t count) : buffers_(count) {
    for (grpc_slice_buffer& buffer : buffers_) grpc_slice_buffer_init(&buffer);
  }
  ~SliceBufferSet() {
    for (grpc_slice_buffer& buffer : buffers_) {
      grpc_slice_buffer_destroy(&buffer);
    }
  }
  SliceBufferSet(const SliceBufferSet&) = delete;
  SliceBufferSet& operator=(const SliceBufferSet&) = delete;

  grpc_slice_buffer* operator[](size_t i) { return &buffers_[i]; }

 private:
  SliceBuffers buffers_;
};

// Where the cold feeds of one message size are in their rotation: an
// output held per message and the message next in turn. Shared by every
// cold benchmark of that size and kept from run to run, so that a run goes
// on where the last one stopped (Google Benchmark runs a function several
// times to settle the iteration count; starting again at the first
// message would read what the last run just brought into cache), and so
// that the process holds that many recent outputs in its heap, as a server
// does with many calls in flight. Each output starts as a written block of
// the message size, so that even the first round reuses memory that is
// resident: cold in cache, not new pages to fault in.
struct ColdRotation {
  ColdRotation(size_t count, size_t size) : outputs(count) {
    for (size_t i = 0; i < count; ++i) {
      grpc_slice block = grpc_slice_malloc(size);
      std::memset(GRPC_SLICE_START_PTR(block), 0, size);
      grpc_slice_buffer_add_indexed(outputs[i], block);
    }
  }
  SliceBufferSet outputs;
  size_t next = 0;
};

ColdRotation& RotationFor(size_t size, size_t count) {
  static auto* rotations = new std::map<size_t, std::unique_ptr<ColdRotation>>;
  std::unique_ptr<ColdRotation>& rotation = (*rotations)[size];
  if (rotation == nullptr) {
    rotation = std::make_unique<ColdRotation>(count, size);
  }
  return *rotation;
}

// `bytes` as the slices `feed` hands the codec; they refer to `bytes`.
void FillInput(Op op, Feed feed, absl::string_view bytes,
               grpc_slice_buffer* input) {
  std::vector<size_t> lengths = {bytes.size()};
  if (feed == Feed::kSliced) lengths = SlicedLengths(op, bytes.size());
  AddSlices(bytes, lengths, input);
}

void BM_Codec(benchmark::State& state, Op op, payloads::Kind kind, size_t size,
              Impl impl) {
  MessageSet payload;
  MessageSet input;
  Messages messages{&payload, &input};
  if (impl.feed == Feed::kCold) {
    messages = ColdMessages(op, kind, size, impl);
  } else {
    MakeMessages(op, kind, size, impl, 1, &payload, &input);
    if (op == Op::kCompress) messages.inputs = &payload;
  }
  const size_t count = messages.inputs->size();
  if (count == 0 || count != messages.payloads->size()) {
    state.SkipWithError("could not prepare the input");
    return;
  }
  SliceBufferSet inputs(count);
  for (size_t i = 0; i < count; ++i) {
    FillInput(op, impl.feed, (*messages.inputs)[i], inputs[i]);
  }
  // The first and last messages stand for the rest: checking tens of
  // thousands would cost more than the run.
  for (size_t i : {size_t{0}, count - 1}) {
    if (!RoundTripOk(op, impl, inputs[i], (*messages.payloads)[i])) {
      state.SkipWithError("round trip failed");
      return;
    }
  }
  const CompressOptions options = OptionsOf(impl);
  // Steady state: the pool is warm, so the one-off creation of a context is
  // not charged to the measured ops.
  const int64_t produced = RunOnce(op, impl, options, inputs[0]);
  const double context_bytes =
      ContextHeapBytes(op, impl, (*messages.inputs)[0]);
  // A cold feed keeps each output until its message comes round again, so
  // that outputs too rotate through memory instead of reusing one block.
  ColdRotation* rotation =
      impl.feed == Feed::kCold ? &RotationFor(size, count) : nullptr;
  std::unique_ptr<ContextRing> ring;
  if (rotation != nullptr && !impl.stock && cold_contexts > 1) {
    ring = std::make_unique<ContextRing>(op, impl, cold_contexts);
    // Each context's first message, which allocates, is not timed.
    for (size_t i = 0; ring->ok() && i < cold_contexts; ++i) {
      grpc_slice_buffer out;
      grpc_slice_buffer_init(&out);
      if (!ring->Run(*inputs[i % count], &out)) ring.reset();
      grpc_slice_buffer_destroy(&out);
      if (ring == nullptr) break;
    }
    if (ring == nullptr || !ring->ok()) {
      state.SkipWithError("could not make the contexts to rotate over");
      return;
    }
  }

  const uint64_t faults_before = ThreadMinorFaults();
  const AllocCounts before = ReadAllocCounts();
  if (rotation != nullptr) {
    size_t next = rotation->next;
    for (auto _ : state) {
      grpc_slice_buffer* out = rotation->outputs[next];
      grpc_slice_buffer_reset_and_unref(out);
      benchmark::DoNotOptimize(
          ring != nullptr ? ring->Run(*inputs[next], out)
                          : RunOp(op, impl, options, inputs[next], out));
      next = next + 1 == count ? 0 : next + 1;
    }
    rotation->next = next;
  } else {
    for (auto _ : state) {
      benchmark::DoNotOptimize(RunOnce(op, impl, options, inputs[0]));
    }
  }
  const AllocCounts used = ReadAllocCounts() - before;
  const uint64_t faults = ThreadMinorFaults() - faults_before;

  using benchmark::Counter;
  auto per_op = [](uint64_t value) {
    return Counter(static_cast<double>(value), Counter::kAvgIterations);
  };
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(size));
  state.counters["allocs_per_op"] = per_op(used.allocs);
  state.counters["heap_bytes_per_op"] = per_op(used.bytes);
  state.counters["zlib_state_allocs_per_op"] = per_op(used.zlib_state_allocs());
  state.counters["zlib_state_bytes_per_op"] = per_op(used.zlib_state_bytes());
  state.counters["zlib_stream_inits_per_op"] =
      per_op(used.deflate_inits + used.inflate_inits);
  state.counters["minor_faults_per_op"] = per_op(faults);
  state.counters["output_bytes"] = static_cast<double>(produced);
  state.counters["context_heap_bytes"] = context_bytes;
  state.counters["input_slices"] = static_cast<double>(inputs[0]->count);
  state.counters["messages"] = static_cast<double>(count);
}

// Takes `--<name>=<value>` out of argv, which Google Benchmark would
// otherwise reject: the last value given, or nullopt.
std::optional<std::string> TakeFlag(int* argc, char** argv,
                                    std::string_view name) {
  const std::string prefix = "--" + std::string(name) + "=";
  std::optional<std::string> value;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, prefix.size()) == prefix) {
      value = std::string(arg.substr(prefix.size()));
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  return value;
}

// --payloads=<kind>,<kind>,... or "all" (the default) into `kinds`; false
// for an unknown kind.
bool ParsePayloads(const std::optional<std::string>& flag,
                   std::vector<payloads::Kind>* kinds) {
  *kinds = payloads::AllKinds();
  if (!flag || *flag == "all") return true;
  kinds->clear();
  std::string_view list = *flag;
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    const std::optional<payloads::Kind> kind =
        payloads::ParseKind(list.substr(0, comma));
    if (!kind) return false;
    kinds->push_back(*kind);
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return !kinds->empty();
}

// --sizes=<bytes>,<bytes>,... into `out`, every cell then a detail cell;
// the benchmarks' own sizes without the flag. False for anything but counts
// above 0.
bool ParseSizes(const std::optional<std::string>& flag,
                std::vector<size_t>* out) {
  *out = payloads::AllSizes();
  if (!flag) return true;
  out->clear();
  std::string_view list = *flag;
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    size_t size = 0;
    if (!absl::SimpleAtoi(absl::string_view(list.data(), comma), &size) ||
        size == 0) {
      return false;
    }
    out->push_back(size);
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  every_cell_detailed = true;
  return !out->empty();
}

// Messages past 1 MiB, as core hands them over (1 MiB slices), for the
// default setups only: what a large message costs per byte against 1 MiB
// (compress/records/1048576/<impl>/sliced), and its page faults.
constexpr size_t kLargeSizes[] = {size_t{2} << 20, size_t{4} << 20,
                                  size_t{16} << 20};

std::vector<Impl> LargeImpls(Op op) {
  const Backend decoder = pooled_gzip::internal::DefaultDecoder(Format::kGzip);
  const std::vector<Impl> impls =
      op == Op::kCompress
          ? std::vector<Impl>{StockImpl(), CompressImpl(Backend::kZlib, 6),
                              CompressImpl(Backend::kLibdeflate, 6),
                              CompressImpl(Backend::kIsal, 1)}
          : std::vector<Impl>{StockImpl(), DecompressImpl(decoder, kZlib6),
                              DecompressImpl(decoder, kLibdeflate6),
                              DecompressImpl(decoder, kIsal1)};
  std::vector<Impl> sliced;
  for (const Impl& impl : impls) sliced.push_back(impl.With(Feed::kSliced));
  return sliced;
}

void Register(Op op, payloads::Kind kind, size_t size, const Impl& impl) {
  const std::string name = std::string(OpName(op)) + "/" +
                           payloads::KindName(kind) + "/" +
                           std::to_string(size) + "/" + ImplName(op, impl);
  benchmark::RegisterBenchmark(name.c_str(), BM_Codec, op, kind, size, impl)
      ->Unit(benchmark::kMicrosecond);
}

void RegisterAll(const std::vector<payloads::Kind>& kinds) {
  for (Op op : {Op::kCompress, Op::kDecompress}) {
    for (payloads::Kind kind : kinds) {
      for (size_t size : sizes) {
        for (const Impl& impl : op == Op::kCompress
                                    ? CompressImpls(kind, size)
                                    : DecompressImpls(kind, size)) {
          Register(op, kind, size, impl);
        }
      }
      if (kind != payloads::Kind::kRecords) continue;
      for (size_t size : kLargeSizes) {
        for (const Impl& impl : LargeImpls(op)) Register(op, kind, size, impl);
      }
    }
  }
}

}  // namespace
}  // namespace pooled_gzip::bench

int main(int argc, char** argv) {
  namespace bench = pooled_gzip::bench;
  std::vector<pooled_gzip::payloads::Kind> kinds;
  if (!bench::ParsePayloads(bench::TakeFlag(&argc, argv, "payloads"), &kinds)) {
    std::fprintf(stderr,
                 "codec_bench: --payloads takes \"all\" or a list of words, "
                 "text, proto, json, source, random\n");
    return 2;
  }
  // --cold_feed_bytes sets the cold feed outright (the smoke test's small
  // one); --cache_size_file reads the listed cache from another file (the
  // smoke test's fake of a huge listing).
  const std::optional<std::string> cache_file =
      bench::TakeFlag(&argc, argv, "cache_size_file");
  const std::optional<std::string> cold_feed =
      bench::TakeFlag(&argc, argv, "cold_feed_bytes");
  if (!bench::ParseSizes(bench::TakeFlag(&argc, argv, "sizes"),
                         &bench::sizes)) {
    std::fprintf(stderr,
                 "codec_bench: --sizes takes a list of byte counts above 0\n");
    return 2;
  }
  const std::optional<std::string> contexts =
      bench::TakeFlag(&argc, argv, "cold_contexts");
  if (contexts && (!absl::SimpleAtoi(*contexts, &bench::cold_contexts) ||
                   bench::cold_contexts == 0)) {
    std::fprintf(stderr,
                 "codec_bench: --cold_contexts takes a count above 0\n");
    return 2;
  }
  bench::cold_bytes = bench::ColdBytesFor(cache_file ? cache_file->c_str()
                                                     : bench::kListedCacheFile);
  if (cold_feed && (!absl::SimpleAtoi(*cold_feed, &bench::cold_bytes) ||
                    bench::cold_bytes == 0)) {
    std::fprintf(stderr,
                 "codec_bench: --cold_feed_bytes takes a count of "
                 "bytes above 0\n");
    return 2;
  }
  bench::RegisterAll(kinds);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!bench::AllocCounterActive()) {
    std::fprintf(stderr,
                 "codec_bench: the malloc interposer is not active; heap "
                 "figures would be zero\n");
    return 1;
  }
  benchmark::AddCustomContext("zlib_version", zlibVersion());
  benchmark::AddCustomContext("grpc_version", grpc_version_string());
  benchmark::AddCustomContext("cold_feed_bytes",
                              std::to_string(bench::cold_bytes));
  benchmark::AddCustomContext("cold_contexts",
                              std::to_string(bench::cold_contexts));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
