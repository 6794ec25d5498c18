// A libgrpc whose read-only slots cannot be written: Debian's libgrpc takes
// `deflate` and `inflate` by address (GLOB_DAT slots inside its RELRO
// segment, made writable with mprotect for the store), and calls the other
// four through lazy slots outside it. Here a seccomp filter refuses
// mprotect on libgrpc's RELRO pages, as a hardened kernel policy may. The
// two slots that open streams must then stay real zlib's: a stream opened
// by the emulation would reach real zlib's deflate, fail every message with
// Z_STREAM_ERROR, and never be freed. The process says why it is not
// served and runs as stock gRPC.

#include <grpc/grpc.h>
#include <grpc/slice.h>
#include <grpc/slice_buffer.h>
#include <gtest/gtest.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "message_codec.h"
#include "payloads.h"
#include "pooled_gzip/pooled_gzip.h"
#include "seam/slot_rewrite.h"
#include "seam/zlib_seam.h"

namespace pooled_gzip::reliability {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#endif

struct Pages {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

// libgrpc's RELRO segment, in whole pages.
int FindGrpcRelro(dl_phdr_info* info, size_t, void* data) {
  if (std::strstr(info->dlpi_name, "/libgrpc.so") == nullptr) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type != PT_GNU_RELRO) continue;
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    auto* pages = static_cast<Pages*>(data);
    pages->begin = (info->dlpi_addr + header.p_vaddr) & ~(page - 1);
    pages->end = info->dlpi_addr + header.p_vaddr + header.p_memsz;
    return 1;
  }
  return 0;
}

// EPERM for mprotect of an address in `pages`, which must not cross a
// 4 GiB boundary (classic BPF compares 32 bits at a time).
bool RefuseMprotectOn(const Pages& pages) {
  const auto high = static_cast<uint32_t>(pages.begin >> 32);
  const auto low_begin = static_cast<uint32_t>(pages.begin);
  const auto low_end = static_cast<uint32_t>(pages.end);
  constexpr uint32_t kArg0Low = offsetof(seccomp_data, args[0]);
  constexpr uint32_t kArg0High = offsetof(seccomp_data, args[0]) + 4;
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 0, 7),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 0, 5),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg0High),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, high, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kArg0Low),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, low_begin, 0, 1),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, low_end, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
  };
  sock_fprog program{static_cast<unsigned short>(std::size(filter)), filter};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

// The entry points whose slots in libgrpc lead to the emulation.
std::vector<internal::ZlibEntry> SlotsLeadingHere() {
  std::vector<internal::SlotTarget> targets;
  for (const internal::ZlibEntry& entry : internal::ZlibEntries()) {
    targets.push_back({entry.name, entry.served, entry.stock});
  }
  const internal::SlotReport report = internal::InspectSlots(
      targets, reinterpret_cast<const void*>(&InstallCoreCodec),
      reinterpret_cast<const void*>(&grpc_init));
  std::vector<internal::ZlibEntry> here;
  for (const internal::ZlibEntry& entry : internal::ZlibEntries()) {
    if (absl::StrContains(report.detail,
                          std::string(entry.name) + "->pooled_gzip")) {
      here.push_back(entry);
    }
  }
  return here;
}

TEST(RefusedSlotStore, OpeningSlotsStayZlibsAndTheProcessRunsAsStock) {
  Pages relro;
  dl_iterate_phdr(FindGrpcRelro, &relro);
  ASSERT_NE(relro.begin, 0u) << "libgrpc has no RELRO segment";
  ASSERT_EQ(relro.begin >> 32, (relro.end - 1) >> 32);
  ASSERT_TRUE(RefuseMprotectOn(relro)) << std::strerror(errno);

  EXPECT_FALSE(InstallCoreCodec());
  const absl::Status status = CoreCodecStatus();
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "cannot all be pointed"))
      << status;
  const CoreCodecState state = GetCoreCodecState();
  EXPECT_EQ(state.compress, ServingState::kRefused);
  EXPECT_EQ(state.decompress, ServingState::kRefused);
  for (const internal::ZlibEntry& slot : SlotsLeadingHere()) {
    EXPECT_NE(slot.role, internal::ZlibEntryRole::kOpening) << slot.name;
  }

  // gRPC's own codec, on real zlib: both formats, both ways.
  const std::string message =
      payloads::Make(payloads::Kind::kRecords, 64 << 10);
  for (grpc_compression_algorithm algorithm :
       {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE}) {
    grpc_slice_buffer plain, stream, inflated;
    for (grpc_slice_buffer* buffer : {&plain, &stream, &inflated}) {
      grpc_slice_buffer_init(buffer);
    }
    grpc_slice_buffer_add(
        &plain, grpc_slice_from_copied_buffer(message.data(), message.size()));
    EXPECT_EQ(grpc_msg_compress(algorithm, &plain, &stream), 1);
    EXPECT_EQ(grpc_msg_decompress(algorithm, &stream, &inflated), 1);
    EXPECT_EQ(test_support::Flatten(inflated), message);
    for (grpc_slice_buffer* buffer : {&plain, &stream, &inflated}) {
      grpc_slice_buffer_destroy(buffer);
    }
  }
}

}  // namespace
}  // namespace pooled_gzip::reliability
