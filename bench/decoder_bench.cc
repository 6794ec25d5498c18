// How fast received messages are inflated: for what peers send (zlib-6, a
// stock gRPC peer; libdeflate-6; ISA-L-1), records and text, 1 KiB, 64 KiB
// and 1 MiB, gzip and deflate, four decoders on the same message in one
// run:
//   - "zlib", "libdeflate", "isal": each pooled decoder by its own rules
//     (one pass), whichever Options::decoder would name; the table marks
//     the one the library picks with Options::decoder unset (the default)
//     and the fastest;
//   - "exact": the default held to zlib's refusals
//     (Options::exact_zlib_refusals);
//   - "library": the library behind the default alone, on the message in
//     one block into a buffer of its own: no pool, no slices, no checks of
//     ours, what no decoder through gRPC can beat.
// The pooled decoders take the message in the slices core hands a received
// one to the codec and write gRPC slices, as the core codec does.
//
// Names are "<format>/<kind>/<size>/<sender>/<decoder>". After Google
// Benchmark's own report, a table of each cell's medians and ratios, in
// Markdown (results/benchmarks.md, "Decoding").
//
// Fragmented input, as an odd or hostile peer may send it: the 64 KiB
// records cells from zlib-6 again, in 1-byte slices, for each pooled
// decoder ("<cell>/<decoder>/1-byte-slices"), and a second table of what
// that costs against zlib on the same slices and against the message in
// core's slices. Those times include the views of the 65,536 slices the
// codec is handed, which cost every decoder the same; "<cell>/views" times
// building them alone, so that the table also shows ISA-L's reader alone.

#include <benchmark/benchmark.h>
#include <grpc/slice_buffer.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/codec.h"
#include "codec/settings.h"
#include "codec_paths.h"
#include "glue/slice_buffers.h"
#include "message_codec.h"
#include "payloads.h"

namespace pooled_gzip::bench {
namespace {

using internal::Format;
using internal::FormatName;
using internal::Strictness;

struct Sender {
  Backend backend;
  int level;
};

constexpr Sender kSenders[] = {
    {Backend::kZlib, 6}, {Backend::kLibdeflate, 6}, {Backend::kIsal, 1}};

std::string SenderName(const Sender& sender) {
  return absl::StrCat(BackendName(sender.backend), "-", sender.level);
}

enum class Decoder { kZlib, kLibdeflate, kIsal, kExact, kLibrary };
constexpr Decoder kDecoders[] = {Decoder::kZlib, Decoder::kLibdeflate,
                                 Decoder::kIsal, Decoder::kExact,
                                 Decoder::kLibrary};
constexpr Decoder kPooled[] = {Decoder::kZlib, Decoder::kLibdeflate,
                               Decoder::kIsal};

const char* DecoderName(Decoder decoder) {
  switch (decoder) {
    case Decoder::kLibdeflate:
      return "libdeflate";
    case Decoder::kIsal:
      return "isal";
    case Decoder::kExact:
      return "exact";
    case Decoder::kZlib:
      return "zlib";
    case Decoder::kLibrary:
      return "library";
  }
  return "?";
}

struct Cell {
  Format format;
  payloads::Kind kind;
  size_t size;
  Sender sender;
};

std::string CellName(const Cell& cell) {
  return absl::StrCat(FormatName(cell.format), "/",
                      payloads::KindName(cell.kind), "/", cell.size, "/",
                      SenderName(cell.sender));
}

// One message of a cell, compressed once for every decoder.
struct Message {
  std::string plain;
  std::string compressed;
};

const Message& MessageOf(const Cell& cell) {
  static auto* messages = new std::map<std::string, Message>;
  Message& message = (*messages)[CellName(cell)];
  if (message.compressed.empty()) {
    message.plain = payloads::Make(cell.kind, cell.size, 7);
    internal::CompressOptions options;
    options.format = cell.format;
    options.backend = cell.sender.backend;
    options.level = cell.sender.level;
    if (!internal::CompressToString(message.plain, options, &message.compressed)
             .ok()) {
      std::fprintf(stderr, "decoder_bench: cannot compress %s\n",
                   CellName(cell).c_str());
      std::abort();
    }
  }
  return message;
}

// The library behind the default decoder, called directly.
class Library {
 public:
  explicit Library(Format format) : format_(format) {
    decompressor_ = libdeflate_alloc_decompressor();
  }
  ~Library() { libdeflate_free_decompressor(decompressor_); }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  // Inflates `in` into `out`, which has room for exactly the message.
  bool Inflate(const std::string& in, std::string* out) {
    if (internal::DefaultDecoder(format_) == Backend::kLibdeflate) {
      size_t produced = 0;
      const auto decompress = format_ == Format::kGzip
                                  ? libdeflate_gzip_decompress
                                  : libdeflate_zlib_decompress;
      return decompress(decompressor_, in.data(), in.size(), out->data(),
                        out->size(), &produced) == LIBDEFLATE_SUCCESS &&
             produced == out->size();
    }
    isal_inflate_init(&state_);
    state_.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in.data()));
    state_.avail_in = static_cast<uint32_t>(in.size());
    state_.next_out = reinterpret_cast<uint8_t*>(out->data());
    state_.avail_out = static_cast<uint32_t>(out->size());
    state_.crc_flag = format_ == Format::kGzip ? ISAL_GZIP : ISAL_ZLIB;
    return isal_inflate_stateless(&state_) == ISAL_DECOMP_OK &&
           state_.avail_out == 0;
  }

 private:
  Format format_;
  libdeflate_decompressor* decompressor_;
  inflate_state state_;
};

// The pooled backend a decoder stands for.
Backend BackendOf(Decoder decoder, Format format) {
  switch (decoder) {
    case Decoder::kZlib:
      return Backend::kZlib;
    case Decoder::kLibdeflate:
      return Backend::kLibdeflate;
    case Decoder::kIsal:
      return Backend::kIsal;
    default:
      return internal::DefaultDecoder(format);
  }
}

// The received message's slices: core's, or all of `piece` bytes.
std::vector<size_t> SliceLengths(size_t length, size_t piece) {
  if (piece == 0) return CoreSliceLengths(Direction::kReceived, length);
  std::vector<size_t> lengths(length / piece, piece);
  if (length % piece != 0) lengths.push_back(length % piece);
  return lengths;
}

void BM_Decode(benchmark::State& state, Cell cell, Decoder decoder,
               size_t piece) {
  const Message& message = MessageOf(cell);
  if (decoder == Decoder::kLibrary) {
    Library library(cell.format);
    std::string out(message.plain.size(), '\0');
    for (auto _ : state) {
      if (!library.Inflate(message.compressed, &out)) {
        state.SkipWithError("the library failed");
        return;
      }
      benchmark::DoNotOptimize(out.data());
    }
    if (out != message.plain) state.SkipWithError("wrong output");
    return;
  }
  const Backend backend = BackendOf(decoder, cell.format);
  const Strictness strictness = decoder == Decoder::kExact
                                    ? Strictness::kExactZlibRefusals
                                    : Strictness::kDecoder;
  grpc_slice_buffer input;
  grpc_slice_buffer output;
  grpc_slice_buffer_init(&input);
  grpc_slice_buffer_init(&output);
  AddSlices(message.compressed, SliceLengths(message.compressed.size(), piece),
            &input);
  bool ok = true;
  // Freeing the message is part of receiving it.
  for (auto _ : state) {
    ok = PooledDecompress(input, cell.format, backend, &output, strictness);
    if (!ok) break;
    grpc_slice_buffer_reset_and_unref(&output);
  }
  if (!ok) state.SkipWithError("the decoder failed");
  ok = ok &&
       PooledDecompress(input, cell.format, backend, &output, strictness) &&
       test_support::Flatten(output) == message.plain;
  if (!ok) state.SkipWithError("wrong output");
  grpc_slice_buffer_destroy(&output);
  grpc_slice_buffer_destroy(&input);
}

std::vector<Cell> Cells() {
  std::vector<Cell> cells;
  for (Format format : {Format::kGzip, Format::kDeflate}) {
    for (payloads::Kind kind :
         {payloads::Kind::kRecords, payloads::Kind::kProse}) {
      for (size_t size : {size_t{1} << 10, size_t{64} << 10, size_t{1} << 20}) {
        for (const Sender& sender : kSenders) {
          cells.push_back({format, kind, size, sender});
        }
      }
    }
  }
  return cells;
}

// Keeps each benchmark's median CPU time per message, for the table: on
// a shared machine, what the decoder itself took.
class MedianCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool median =
          run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      // A run without repetitions has no aggregate: its one time stands.
      if (median ||
          (run.run_type == Run::RT_Iteration && run.repetitions <= 1)) {
        micros_[run.run_name.function_name] =
            run.GetAdjustedCPUTime() *
            benchmark::GetTimeUnitMultiplier(benchmark::kMicrosecond) /
            benchmark::GetTimeUnitMultiplier(run.time_unit);
      }
    }
  }

  double Micros(const std::string& name) const {
    auto it = micros_.find(name);
    return it == micros_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, double> micros_;
};

std::string SizeName(size_t size) {
  if (size >= (size_t{1} << 20)) return absl::StrCat(size >> 20, " MiB");
  if (size >= 1024) return absl::StrCat(size >> 10, " KiB");
  return absl::StrCat(size, " B");
}

std::string Time(double micros) {
  return micros >= 1000 ? absl::StrFormat("%.2f ms", micros / 1000)
                        : absl::StrFormat("%.1f us", micros);
}

std::string Ratio(double numerator, double denominator) {
  return denominator > 0 && numerator > 0
             ? absl::StrFormat("%.2fx", numerator / denominator)
             : "-";
}

void PrintTable(const MedianCollector& collector) {
  std::printf(
      "\n| format | payload | size | sent by | zlib | libdeflate | isal | "
      "exact | library | default vs zlib | default vs library | "
      "exact vs zlib | fastest |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Cell& cell : Cells()) {
    const std::string name = CellName(cell);
    auto micros = [&](Decoder decoder) {
      return collector.Micros(absl::StrCat(name, "/", DecoderName(decoder)));
    };
    const Backend default_backend = internal::DefaultDecoder(cell.format);
    double fast = 0;
    Decoder fastest = Decoder::kZlib;
    std::string pooled;
    for (Decoder decoder : kPooled) {
      const double time = micros(decoder);
      const bool is_default =
          BackendOf(decoder, cell.format) == default_backend;
      if (is_default) fast = time;
      if (time > 0 && time < micros(fastest)) fastest = decoder;
      absl::StrAppend(&pooled, is_default ? " **" : " ", Time(time),
                      is_default ? "** |" : " |");
    }
    const double zlib = micros(Decoder::kZlib);
    const double exact = micros(Decoder::kExact);
    const double library = micros(Decoder::kLibrary);
    if (zlib == 0 || fast == 0) continue;  // filtered out
    std::printf("| %s | %s | %s | %s |%s %s | %s | %s | %s | %s | %s |\n",
                std::string(FormatName(cell.format)).c_str(),
                payloads::KindName(cell.kind), SizeName(cell.size).c_str(),
                SenderName(cell.sender).c_str(), pooled.c_str(),
                Time(exact).c_str(), Time(library).c_str(),
                Ratio(zlib, fast).c_str(), Ratio(fast, library).c_str(),
                Ratio(zlib, exact).c_str(), DecoderName(fastest));
  }
}

// What the codec's caller spends on the views of the message's slices.
void BM_Views(benchmark::State& state, Cell cell) {
  const Message& message = MessageOf(cell);
  grpc_slice_buffer input;
  grpc_slice_buffer_init(&input);
  AddSlices(message.compressed, SliceLengths(message.compressed.size(), 1),
            &input);
  for (auto _ : state) {
    const internal::SliceViews views = internal::ViewsOf(input);
    benchmark::DoNotOptimize(views.data());
  }
  grpc_slice_buffer_destroy(&input);
}

std::vector<Cell> FragmentedCells() {
  return {
      {Format::kGzip, payloads::Kind::kRecords, size_t{64} << 10, kSenders[0]},
      {Format::kDeflate, payloads::Kind::kRecords, size_t{64} << 10,
       kSenders[0]}};
}

constexpr char kFragmented[] = "/1-byte-slices";

void PrintFragmentedTable(const MedianCollector& collector) {
  std::printf(
      "\n| format | payload | size | sent by | zlib, 1-byte slices | "
      "libdeflate, 1-byte slices | isal, 1-byte slices | default's time / "
      "zlib's, "
      "1-byte slices | isal, 1-byte vs core's slices | views of the "
      "slices | isal's reader alone, 1-byte vs core's slices |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Cell& cell : FragmentedCells()) {
    const std::string name = CellName(cell);
    auto micros = [&](Decoder decoder, const char* tail) {
      return collector.Micros(
          absl::StrCat(name, "/", DecoderName(decoder), tail));
    };
    const double zlib = micros(Decoder::kZlib, kFragmented);
    const double isal = micros(Decoder::kIsal, kFragmented);
    double fast = 0;
    for (Decoder decoder : kPooled) {
      if (BackendOf(decoder, cell.format) ==
          internal::DefaultDecoder(cell.format)) {
        fast = micros(decoder, kFragmented);
      }
    }
    const double views = collector.Micros(absl::StrCat(name, "/views"));
    const double isal_whole = micros(Decoder::kIsal, "");
    if (zlib == 0 || isal == 0) continue;  // filtered out
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                std::string(FormatName(cell.format)).c_str(),
                payloads::KindName(cell.kind), SizeName(cell.size).c_str(),
                SenderName(cell.sender).c_str(), Time(zlib).c_str(),
                Time(micros(Decoder::kLibdeflate, kFragmented)).c_str(),
                Time(isal).c_str(), Ratio(fast, zlib).c_str(),
                Ratio(isal, isal_whole).c_str(), Time(views).c_str(),
                views == 0 ? "" : Ratio(isal - views, isal_whole).c_str());
  }
}

}  // namespace
}  // namespace pooled_gzip::bench

int main(int argc, char** argv) {
  using namespace pooled_gzip::bench;
  for (const Cell& cell : Cells()) {
    for (Decoder decoder : kDecoders) {
      benchmark::RegisterBenchmark(
          absl::StrCat(CellName(cell), "/", DecoderName(decoder)).c_str(),
          BM_Decode, cell, decoder, size_t{0})
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (const Cell& cell : FragmentedCells()) {
    for (Decoder decoder : kPooled) {
      benchmark::RegisterBenchmark(
          absl::StrCat(CellName(cell), "/", DecoderName(decoder), kFragmented)
              .c_str(),
          BM_Decode, cell, decoder, size_t{1})
          ->Unit(benchmark::kMicrosecond);
    }
    benchmark::RegisterBenchmark(absl::StrCat(CellName(cell), "/views").c_str(),
                                 BM_Views, cell)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  MedianCollector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  PrintTable(collector);
  PrintFragmentedTable(collector);
  benchmark::Shutdown();
  return 0;
}
