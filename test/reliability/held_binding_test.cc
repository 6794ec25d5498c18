// Activation while another thread is inside the dynamic linker's binding of
// one of libgrpc's lazy zlib slots: that binding writes zlib's address over
// the one activation stored, after activation has published "active". The
// slot must be pointed back before anything depends on it: every message
// after that is served and its stream freed by the seam (none reaches real
// zlib's End, where it would leak), and CoreCodecActive() is never true
// while gRPC's messages run on real zlib. Each case needs a process in which
// nothing bound the slot yet: CTest runs each in a process of its own.

#include <grpc/grpc.h>
#include <grpc/slice_buffer.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "held_bindings.h"
#include "message_codec.h"
#include "payloads.h"
#include "pooled_gzip/pooled_gzip.h"
#include "seam/zlib_seam.h"
#include "traffic_totals.h"

namespace pooled_gzip {
namespace {

using test_support::HeldEntry;

constexpr int kMessages = 20;

struct SliceBuffer {
  SliceBuffer() { grpc_slice_buffer_init(&buffer); }
  explicit SliceBuffer(const std::string& bytes) : SliceBuffer() {
    grpc_slice_buffer_add(
        &buffer, grpc_slice_from_copied_buffer(bytes.data(), bytes.size()));
  }
  ~SliceBuffer() { grpc_slice_buffer_destroy(&buffer); }
  grpc_slice_buffer buffer;
};

const std::string& Message() {
  static const std::string* message = new std::string(
      payloads::Make(payloads::Kind::kRecords, 16 << 10, /*seed=*/1));
  return *message;
}

// The message through gRPC's own codec, compressed, then inflated; whether
// both came back as gRPC's contract says.
bool ThroughGrpcsCodec(bool compressing, const std::string& compressed) {
  if (compressing) {
    SliceBuffer input(Message());
    SliceBuffer output;
    return grpc_msg_compress(GRPC_COMPRESS_GZIP, &input.buffer,
                             &output.buffer) == 1;
  }
  SliceBuffer input(compressed);
  SliceBuffer output;
  return grpc_msg_decompress(GRPC_COMPRESS_GZIP, &input.buffer,
                             &output.buffer) == 1 &&
         test_support::Flatten(output.buffer) == Message();
}

// The message as a stock peer sends it: zlib-6 gzip by core's contract.
std::string StockGzip() {
  SliceBuffer input(Message());
  SliceBuffer output;
  EXPECT_EQ(test_support::ReferenceCompress(GRPC_COMPRESS_GZIP, &input.buffer,
                                            &output.buffer),
            1);
  return test_support::Flatten(output.buffer);
}

class HeldBinding : public testing::TestWithParam<HeldEntry> {
 protected:
  static bool Compressing() {
    return GetParam() == HeldEntry::kDeflateInit2 ||
           GetParam() == HeldEntry::kDeflateEnd;
  }
};

// A thread makes gRPC's first message of the direction before anything is
// installed, and is held inside the binding of the slot under test; the
// first install points every slot and publishes; then the binding writes
// zlib's address into that slot.
TEST_P(HeldBinding, LeavesNoStreamOnRealZlibAndNoFalseActive) {
  grpc_init();
  const bool compressing = Compressing();
  const std::string compressed = StockGzip();
  test_support::HoldNextBinding(GetParam());
  bool held_call_ok = false;
  std::thread held(
      [&] { held_call_ok = ThroughGrpcsCodec(compressing, compressed); });
  while (!test_support::BindingIsHeld()) std::this_thread::yield();
  ASSERT_TRUE(InstallCoreCodec()) << "activation must see its own calls";
  test_support::ReleaseHeldBinding();
  held.join();
  EXPECT_TRUE(held_call_ok) << "the stock message in the held binding failed";

  // Nothing the program can read says active while messages would run on
  // real zlib.
  ASSERT_TRUE(CoreCodecActive());
  const uint64_t pooled_before = test_support::Totals(compressing).messages;
  const uint64_t freed_before =
      internal::StreamsServedOnThisThread(compressing);
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_TRUE(ThroughGrpcsCodec(compressing, compressed)) << "message " << i;
  }
  EXPECT_EQ(test_support::Totals(compressing).messages - pooled_before,
            static_cast<uint64_t>(kMessages))
      << "messages ran on real zlib after the install";
  EXPECT_EQ(internal::StreamsServedOnThisThread(compressing) - freed_before,
            static_cast<uint64_t>(kMessages))
      << "served streams reached real zlib's End, which does not free them";
  grpc_shutdown();
}

std::string EntryName(const testing::TestParamInfo<HeldEntry>& info) {
  switch (info.param) {
    case HeldEntry::kDeflateInit2:
      return "deflateInit2";
    case HeldEntry::kDeflateEnd:
      return "deflateEnd";
    case HeldEntry::kInflateInit2:
      return "inflateInit2";
    case HeldEntry::kInflateEnd:
      return "inflateEnd";
    case HeldEntry::kNone:
      break;
  }
  return "none";
}

INSTANTIATE_TEST_SUITE_P(EachLazySlot, HeldBinding,
                         testing::Values(HeldEntry::kDeflateInit2,
                                         HeldEntry::kDeflateEnd,
                                         HeldEntry::kInflateInit2,
                                         HeldEntry::kInflateEnd),
                         EntryName);

}  // namespace
}  // namespace pooled_gzip
