#include "seam/contract_probe.h"

#include <grpc/slice.h>
#include <grpc/slice_buffer.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace pooled_gzip {
namespace internal {
namespace {

// Deterministic probe data: text that compresses, bytes that do not.
std::string Text(size_t size) {
  static constexpr absl::string_view kWords[] = {
      "message", "compression", "gzip ",   "stream", "slice",  "buffer",
      "core",    "codec",       "deflate", "window", "header", "trailer"};
  std::string text;
  uint32_t state = 1;
  while (text.size() < size) {
    state = state * 1103515245u + 12345u;
    absl::StrAppend(&text, kWords[(state >> 16) % 12], " ");
  }
  text.resize(size);
  return text;
}

std::string Noise(size_t size) {
  std::string noise(size, '\0');
  uint32_t state = 7;
  for (char& c : noise) {
    state = state * 1103515245u + 12345u;
    c = static_cast<char>(state >> 23);
  }
  return noise;
}

// `bytes` cut into `pieces` slices of about equal length.
std::vector<std::string> Cut(absl::string_view bytes, size_t pieces) {
  std::vector<std::string> slices;
  const size_t step = (bytes.size() + pieces - 1) / pieces;
  for (size_t at = 0; at < bytes.size(); at += step) {
    slices.emplace_back(bytes.substr(at, step));
  }
  return slices;
}

struct Probe {
  std::string what;
  bool compress;
  grpc_compression_algorithm algorithm;
  std::vector<std::string> input;  // slices; none is a buffer of no slices
  std::string output_before;       // already in the output
};

struct Answer {
  int result;
  std::string output;  // every byte of the output afterwards
};

Answer Run(MessageCodecFn fn, const Probe& probe) {
  grpc_slice_buffer input;
  grpc_slice_buffer output;
  grpc_slice_buffer_init(&input);
  grpc_slice_buffer_init(&output);
  for (const std::string& slice : probe.input) {
    grpc_slice_buffer_add_indexed(
        &input, grpc_slice_from_copied_buffer(slice.data(), slice.size()));
  }
  if (!probe.output_before.empty()) {
    grpc_slice_buffer_add_indexed(
        &output, grpc_slice_from_copied_buffer(probe.output_before.data(),
                                               probe.output_before.size()));
  }
  Answer answer{fn(probe.algorithm, &input, &output), {}};
  for (size_t i = 0; i < output.count; ++i) {
    const grpc_slice& slice = output.slices[i];
    answer.output.append(
        reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(slice)),
        GRPC_SLICE_LENGTH(slice));
  }
  grpc_slice_buffer_destroy(&input);
  grpc_slice_buffer_destroy(&output);
  return answer;
}

// The reference's stream of `message`, to decompress.
std::string StreamOf(grpc_compression_algorithm algorithm,
                     absl::string_view message) {
  return Run(&ReferenceCompress,
             {"", true, algorithm, {std::string(message)}, ""})
      .output;
}

std::vector<Probe> Probes() {
  constexpr auto kGzip = GRPC_COMPRESS_GZIP;
  constexpr auto kDeflate = GRPC_COMPRESS_DEFLATE;
  constexpr auto kNone = GRPC_COMPRESS_NONE;
  const std::string text = Text(4096);
  const std::string prefix = "already in the output";
  const std::string gzip = StreamOf(kGzip, text);
  const std::string zlib = StreamOf(kDeflate, text);
  return {
      {"compress gzip, 4096 B of text in 3 slices", true, kGzip, Cut(text, 3),
       ""},
      {"compress deflate, 4096 B of text", true, kDeflate, {text}, ""},
      {"compress gzip, output already holding 4000 B",
       true,
       kGzip,
       {text},
       Text(4000)},
      {"compress gzip, 300 incompressible bytes", true, kGzip,
       Cut(Noise(300), 2), ""},
      {"compress gzip, 1 B", true, kGzip, {"x"}, ""},
      {"compress deflate, no slices", true, kDeflate, {}, ""},
      {"compress none", true, kNone, {text}, prefix},
      {"decompress gzip, the stream in 2 slices", false, kGzip, Cut(gzip, 2),
       prefix},
      {"decompress deflate", false, kDeflate, {zlib}, ""},
      {"decompress none", false, kNone, {text}, prefix},
      {"decompress gzip, no slices", false, kGzip, {}, prefix},
  };
}

std::string Describe(const Answer& answer) {
  return absl::StrCat(answer.result, " with ", answer.output.size(),
                      " B of output");
}

}  // namespace

std::optional<std::string> FirstContractDifference(const MessageCodec& stock) {
  for (const Probe& probe : Probes()) {
    const Answer theirs =
        Run(probe.compress ? stock.compress : stock.decompress, probe);
    const Answer ours =
        Run(probe.compress ? &ReferenceCompress : &ReferenceDecompress, probe);
    if (theirs.result == ours.result && theirs.output == ours.output) continue;
    return absl::StrCat(probe.what, ": gRPC returned ", Describe(theirs),
                        ", pooled_gzip ", Describe(ours),
                        theirs.result == ours.result ? " (other bytes)" : "");
  }
  return std::nullopt;
}

}  // namespace internal
}  // namespace pooled_gzip
