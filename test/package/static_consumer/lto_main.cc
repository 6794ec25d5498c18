// A program linked with an LTO gRPC stand-in (lto_grpc_codec.cc) and the
// static flavour: the stand-in's filter reaches gRPC's own codec, all of it
// LTO objects, and the codec's zlib calls must be served by the pools
// through --wrap, the core codec active only because that was seen, and a
// bomb refused at the cap.
//
//   static_lto_grpc   exits 0 when every check passes.

#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <pooled_gzip/pooled_gzip.h>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>

#include "lto_grpc_filter.h"
#include "zeros_deflated.h"

namespace {

constexpr size_t kCap = 8 << 20;
constexpr int kMessages = 20;

uint64_t PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

struct Totals {
  uint64_t compressed = 0;
  uint64_t inflated = 0;
  uint64_t refused = 0;
};

Totals Now() {
  Totals totals;
  for (const pooled_gzip::TrafficStats& row : pooled_gzip::GetTrafficStats()) {
    (row.compressing ? totals.compressed : totals.inflated) += row.messages;
    totals.refused += row.refused;
  }
  return totals;
}

// `bytes` through `codec` as one slice; the result, and the output's bytes.
int Run(int (*codec)(grpc_compression_algorithm, grpc_slice_buffer*,
                     grpc_slice_buffer*),
        const std::string& bytes, std::string* out) {
  grpc_slice_buffer input;
  grpc_slice_buffer output;
  grpc_slice_buffer_init(&input);
  grpc_slice_buffer_init(&output);
  grpc_slice_buffer_add(
      &input, grpc_slice_from_copied_buffer(bytes.data(), bytes.size()));
  const int result = codec(GRPC_COMPRESS_GZIP, &input, &output);
  out->clear();
  for (size_t i = 0; i < output.count; ++i) {
    out->append(
        reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(output.slices[i])),
        GRPC_SLICE_LENGTH(output.slices[i]));
  }
  grpc_slice_buffer_destroy(&input);
  grpc_slice_buffer_destroy(&output);
  return result;
}

bool Check(bool ok, const char* what) {
  if (!ok) std::cerr << "static_lto_grpc: " << what << "\n";
  return ok;
}

}  // namespace

int main() {
  pooled_gzip::Options options;
  options.max_decompressed_bytes = kCap;
  if (!pooled_gzip::Configure(options).ok()) return 1;
  grpc_init();
  const bool active = pooled_gzip::InstallCoreCodec();
  std::cout << "core codec " << (active ? "active" : "NOT active") << "\n";

  std::string message;
  for (int i = 0; message.size() < 64 * 1024; ++i) {
    message += "{\"id\": " + std::to_string(i) + ", \"name\": \"record\"} ";
  }
  const Totals before = Now();
  bool ok = Check(active, "the core codec is not active");
  for (int i = 0; i < kMessages; ++i) {
    std::string stream;
    std::string back;
    ok &= Check(Run(&LtoFilterCompress, message, &stream) == 1 &&
                    Run(&LtoFilterDecompress, stream, &back) == 1 &&
                    back == message,
                "a message did not round-trip");
  }
  const Totals served = Now();
  std::cout << "through the LTO filter: compressed "
            << served.compressed - before.compressed << ", inflated "
            << served.inflated - before.inflated << " by pooled_gzip\n";
  ok &= Check(served.compressed - before.compressed >= kMessages &&
                  served.inflated - before.inflated >= kMessages,
              "gRPC's codec calls did not reach pooled_gzip");

  const std::string bomb = pooled_gzip::plain_zlib::DeflateWithZeros(
      "", uint64_t{256} << 20, 15 + 16);
  const uint64_t rss_before = PeakRssKib();
  std::string inflated;
  const int bomb_result = Run(&LtoFilterDecompress, bomb, &inflated);
  const uint64_t growth_kib = PeakRssKib() - rss_before;
  std::cout << "a 256 MiB gzip bomb: result " << bomb_result << ", refused "
            << Now().refused - served.refused << ", peak RSS +" << growth_kib
            << " KiB\n";
  ok &= Check(bomb_result == 0 && Now().refused == served.refused + 1,
              "the bomb was not refused at the cap");
  ok &= Check(growth_kib < 32 * 1024, "the bomb grew the process past 32 MiB");
  grpc_shutdown();
  std::cout << (ok ? "PASSED" : "FAILED") << std::endl;
  return ok ? 0 : 1;
}
