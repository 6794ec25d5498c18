// What makes every backend answer as zlib does (codec/zlib_rules.*,
// codec/zlib_fallback.*): the fallback resuming a faster decoder's message;
// hostile input answered exactly as the zlib backend answers it; and
// hand-built bodies that zlib refuses and a fast library takes, refused in
// zlib's words when held to zlib's rules, taken by default.

#include "codec/zlib_rules.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "backend_answers.h"
#include "checking_sink.h"
#include "codec/backend_table.h"
#include "codec/codec.h"
#include "codec/zlib_fallback.h"
#include "gtest/gtest.h"
#include "plain_zlib.h"
#include "pooled_gzip/options.h"
#include "random_inputs.h"

namespace pooled_gzip::internal {

void PrintTo(Format format, std::ostream* os) { *os << FormatName(format); }

namespace {

constexpr size_t kKiB = 1024;

constexpr Format kFormats[] = {Format::kGzip, Format::kDeflate};

using test_support::Answer;
using test_support::CheckingSink;
using test_support::Compressed;
using test_support::DecompressWith;
using test_support::ExpectSameAsZlib;
using test_support::kNoLimit;
using test_support::Slice;
using test_support::Slicing;
using test_support::Wrap;

// ---------------------------------------------------------------------------
// The zlib fallback.

// The zlib fallback picks up where a faster decoder stopped: after the
// output it committed, and in the chunk it left open.
TEST(ZlibFallbackTest, ResumesAfterCommittedOutputAndInTheOpenChunk) {
  const std::string data = payloads::TextLike(300 * kKiB, 24);
  for (Format format : kFormats) {
    const std::string compressed = plain_zlib::Deflate(data, format);
    for (size_t committed : {size_t{0}, size_t{1}, 70 * kKiB, data.size()}) {
      for (size_t open : {size_t{0}, size_t{1}, size_t{5000}}) {
        // A decoder never opens a chunk past limit + 1.
        if (committed + open > data.size() + 1) continue;
        SCOPED_TRACE(absl::StrCat(FormatName(format), " committed ", committed,
                                  " open ", open));
        CheckingSink sink;
        // What the faster decoder left: `committed` bytes, then a chunk.
        if (committed > 0) {
          absl::Span<char> chunk = sink.NextChunk(committed);
          std::copy_n(data.data(), committed, chunk.data());
          sink.CommitChunk(committed);
        }
        absl::Span<char> open_chunk;
        if (open > 0) open_chunk = sink.NextChunk(open);
        internal::ZlibFallback fallback(format);
        const absl::Status status =
            fallback.Inflate(Slice(compressed, Slicing::kRandomCuts),
                             data.size(), &sink, committed, open_chunk);
        ASSERT_TRUE(status.ok()) << status;
        EXPECT_FALSE(sink.open());
        EXPECT_TRUE(sink.out() == data);
        EXPECT_LE(sink.given(), data.size() + 1);
        EXPECT_GT(fallback.HeapBytes(), 0u);
        fallback.Reset();
        // And the limit still counts from the message's first byte.
        CheckingSink short_sink;
        EXPECT_EQ(
            fallback.Inflate({compressed}, data.size() - 1, &short_sink).code(),
            absl::StatusCode::kResourceExhausted);
        EXPECT_LE(short_sink.given(), data.size());
        fallback.Reset();
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Hostile input: every backend answers as the zlib backend does.

class HostileInputTest : public testing::TestWithParam<Format> {
 protected:
  Format format() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(BothFormats, HostileInputTest,
                         testing::ValuesIn(kFormats),
                         [](const testing::TestParamInfo<Format>& info) {
                           return std::string(FormatName(info.param));
                         });

TEST_P(HostileInputTest, CorruptIsDataLoss) {
  const std::string data = payloads::TextLike(50000, 31);
  for (Backend producer : kAllBackends) {
    const std::string good =
        Compressed(producer, format(), kDefaultLevel, data);
    for (size_t at : {good.size() / 3, good.size() / 2, good.size() - 10,
                      good.size() - 3}) {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ 0x55);
      for (Backend reader : kAllBackends) {
        EXPECT_EQ(DecompressWith(reader, format(), {bad}, kNoLimit).code,
                  absl::StatusCode::kDataLoss)
            << BackendName(reader) << " reading " << BackendName(producer)
            << "'s stream corrupted at " << at << " of " << good.size();
      }
      ExpectSameAsZlib(format(), {bad}, kNoLimit, "corrupt");
      ExpectSameAsZlib(format(), Slice(bad, Slicing::kRandomCuts), 1000,
                       "corrupt, limit 1000");
    }
  }
}

TEST_P(HostileInputTest, GarbageAndEmptyInput) {
  const std::string garbage = payloads::RandomBytes(1000, 32);
  for (Backend reader : kAllBackends) {
    EXPECT_EQ(DecompressWith(reader, format(), {garbage}, kNoLimit).code,
              absl::StatusCode::kDataLoss)
        << BackendName(reader);
    EXPECT_EQ(DecompressWith(reader, format(), {""}, kNoLimit).code,
              absl::StatusCode::kDataLoss)
        << BackendName(reader);
    EXPECT_EQ(DecompressWith(reader, format(), {}, kNoLimit).code,
              absl::StatusCode::kDataLoss)
        << BackendName(reader);
  }
  ExpectSameAsZlib(format(), {garbage}, kNoLimit, "garbage");
  const std::string other = plain_zlib::Deflate(
      "x", format() == Format::kGzip ? Format::kDeflate : Format::kGzip);
  ExpectSameAsZlib(format(), {other}, kNoLimit, "wrong format");
}

TEST_P(HostileInputTest, TruncatedAtManyPointsIsDataLoss) {
  const std::string data = payloads::TextLike(30000, 33);
  for (Backend producer : kAllBackends) {
    const std::string good =
        Compressed(producer, format(), kDefaultLevel, data);
    std::vector<size_t> cuts = {1, 2, 5, 9, 10, 11, 12, good.size() / 2};
    for (size_t back = 1; back <= 9; ++back) cuts.push_back(good.size() - back);
    for (size_t cut : cuts) {
      const absl::string_view truncated =
          absl::string_view(good).substr(0, cut);
      for (Backend reader : kAllBackends) {
        EXPECT_EQ(DecompressWith(reader, format(), {truncated}, kNoLimit).code,
                  absl::StatusCode::kDataLoss)
            << BackendName(reader) << " reading " << BackendName(producer)
            << "'s stream cut at " << cut << " of " << good.size();
      }
      ExpectSameAsZlib(format(), Slice(truncated, Slicing::kRandomCuts),
                       kNoLimit, absl::StrCat("truncated at ", cut));
      // With a limit below what the truncated stream still yields, zlib
      // says RESOURCE_EXHAUSTED, however far ahead a backend decoded.
      ExpectSameAsZlib(format(), {truncated}, 100,
                       absl::StrCat("truncated at ", cut, ", limit 100"));
    }
  }
}

TEST_P(HostileInputTest, TrailingBytesAndTwoMembersAreDataLoss) {
  const std::string data = payloads::TextLike(3000, 34);
  for (Backend producer : kAllBackends) {
    const std::string good =
        Compressed(producer, format(), kDefaultLevel, data);
    for (const std::string& bad : {good + "x", good + std::string(8, '\0'),
                                   good + good, good + std::string(1, '\0')}) {
      for (Backend reader : kAllBackends) {
        for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts}) {
          EXPECT_EQ(
              DecompressWith(reader, format(), Slice(bad, slicing), kNoLimit)
                  .code,
              absl::StatusCode::kDataLoss)
              << BackendName(reader) << " reading " << BackendName(producer)
              << "'s stream + " << bad.size() - good.size() << " bytes";
        }
      }
      ExpectSameAsZlib(format(), {bad}, kNoLimit, "trailing");
      // The trailing bytes as a separate piece, and after an empty one.
      ExpectSameAsZlib(format(),
                       {good, absl::string_view(bad).substr(good.size())},
                       kNoLimit, "trailing piece");
      ExpectSameAsZlib(format(),
                       {good, "", absl::string_view(bad).substr(good.size())},
                       kNoLimit, "trailing piece after an empty one");
    }
  }
}

// Random damage, compared with the zlib backend's answer: a small
// differential fuzz that runs on every build.
TEST_P(HostileInputTest, RandomDamageMatchesZlib) {
  std::mt19937 random(35);
  for (Backend producer : kAllBackends) {
    for (size_t size : {size_t{100}, size_t{5000}, 70 * kKiB}) {
      const std::string good = Compressed(producer, format(), kDefaultLevel,
                                          payloads::TextLike(size, 36));
      for (int round = 0; round < 60; ++round) {
        std::string bad = good;
        const int flips = 1 + static_cast<int>(random() % 3);
        for (int i = 0; i < flips; ++i) {
          bad[random() % bad.size()] ^= static_cast<char>(1 << (random() % 8));
        }
        const size_t limits[] = {kNoLimit, size, size / 2, 10};
        const size_t limit = limits[random() % 4];
        const Slicing slicing =
            round % 2 == 0 ? Slicing::kWhole : Slicing::kRandomCuts;
        ExpectSameAsZlib(format(), Slice(bad, slicing, round), limit,
                         absl::StrCat(BackendName(producer), " ", size,
                                      " bytes, round ", round));
      }
    }
  }
}

// A message in small pieces, corrupt past a small limit. Where zlib meets
// the limit against the error depends on how much it is given per call, so
// a fast decoder that reads the pieces gathered must leave zlib the pieces
// as they came (decode_diff_fuzzer's seed AQEF4FsQUFBQllBQ: this body,
// wrapped for what zlib makes of it, in 5-byte pieces under a limit of 8).
TEST_P(HostileInputTest, CorruptPastASmallLimitInSmallPieces) {
  const std::string data("\x5b\x10\x50\x50\x50\x96\x50\x50", 8);
  // zlib's reading of the body, which runs on into the zero trailer: the
  // body ends 14 bytes before where it stopped.
  const plain_zlib::Inflated read =
      plain_zlib::Inflate(Wrap(Format::kGzip, data, ""), Format::kGzip);
  ASSERT_GE(read.consumed, 14u);
  const std::string body = data.substr(0, read.consumed - 14);
  const std::string stream = Wrap(format(), body, read.output);
  std::vector<absl::string_view> pieces;
  for (size_t at = 0; at < stream.size(); at += 5) {
    pieces.push_back(absl::string_view(stream).substr(at, 5));
  }
  const Answer zlib = DecompressWith(Backend::kZlib, format(), pieces, 8);
  ASSERT_EQ(zlib.code, absl::StatusCode::kResourceExhausted) << zlib.message;
  ExpectSameAsZlib(format(), pieces, 8, "corrupt past the limit");
}

// ---------------------------------------------------------------------------
// Bodies zlib refuses that a fast decoder would take: hand-built deflate,
// wrapped with the checksum and size of what the lenient decoder makes of
// it, so that only zlib's rules on the body can refuse them.

// Bits least significant first, as deflate packs them.
class BitWriter {
 public:
  void Put(uint32_t value, int bits) {
    for (int i = 0; i < bits; ++i) PutBit((value >> i) & 1);
  }
  // Huffman codes go most significant bit first.
  void PutCode(uint32_t code, int length) {
    for (int i = length - 1; i >= 0; --i) PutBit((code >> i) & 1);
  }
  std::string Finish() {
    while (used_ != 0) PutBit(0);
    return bytes_;
  }

 private:
  void PutBit(uint32_t bit) {
    if (used_ == 0) bytes_.push_back('\0');
    bytes_.back() = static_cast<char>(bytes_.back() | (bit << used_));
    used_ = (used_ + 1) % 8;
  }
  std::string bytes_;
  int used_ = 0;
};

// The canonical codes of deflate for these lengths.
std::vector<uint32_t> CanonicalCodes(const std::vector<int>& lengths) {
  int count[16] = {};
  for (int length : lengths) ++count[length];
  count[0] = 0;
  uint32_t next[16] = {};
  uint32_t code = 0;
  for (int bits = 1; bits < 16; ++bits) {
    code = (code + count[bits - 1]) << 1;
    next[bits] = code;
  }
  std::vector<uint32_t> codes(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] != 0) codes[i] = next[lengths[i]]++;
  }
  return codes;
}

// A dynamic block's header for these code lengths. The code-length code
// gives 4 bits to each of 0..14 and to 18 (zeros, 11..138), so symbol s
// is code s and 18 is code 15; with `precode_without_18` 18 has no code,
// which leaves that code incomplete. `extra_zeros` makes the last run of
// zeros longer than the lengths, past the declared symbols.
struct DynamicHeader {
  std::vector<int> litlen;
  std::vector<int> dist;
  int extra_zeros = 0;
  bool precode_without_18 = false;
};

void PutDynamicHeader(const DynamicHeader& header, bool final_block,
                      BitWriter* out) {
  static constexpr int kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                     11, 4,  12, 3, 13, 2, 14, 1, 15};
  out->Put(final_block ? 1 : 0, 1);
  out->Put(2, 2);
  out->Put(static_cast<uint32_t>(header.litlen.size() - 257), 5);
  out->Put(static_cast<uint32_t>(header.dist.size() - 1), 5);
  out->Put(15, 4);
  for (int symbol : kOrder) {
    const bool coded =
        symbol < 15 || (symbol == 18 && !header.precode_without_18);
    out->Put(coded ? 4 : 0, 3);
  }
  std::vector<int> lengths = header.litlen;
  lengths.insert(lengths.end(), header.dist.begin(), header.dist.end());
  for (size_t i = 0; i < lengths.size();) {
    size_t run = 0;
    while (i + run < lengths.size() && lengths[i + run] == 0) ++run;
    const bool last_run = i + run == lengths.size();
    const size_t zeros = run + (last_run ? header.extra_zeros : 0);
    if (zeros >= 11 && !header.precode_without_18) {
      const size_t n = std::min<size_t>(zeros, 138);
      out->PutCode(15, 4);
      out->Put(static_cast<uint32_t>(n - 11), 7);
      i += std::min(n, run);
      if (last_run && n >= run) break;
      continue;
    }
    out->PutCode(static_cast<uint32_t>(lengths[i]), 4);
    ++i;
  }
}

// Literal/length lengths: `lengths` for the symbols listed, 0 for the rest.
std::vector<int> Lengths(size_t count, std::vector<std::pair<int, int>> set) {
  std::vector<int> lengths(count, 0);
  for (auto [symbol, length] : set) lengths[symbol] = length;
  return lengths;
}

// A complete code of `count` symbols with lengths `a` and `a + 1`.
std::vector<int> CompleteCode(size_t count, int a) {
  // n symbols of length a and m of a + 1: n + m = count, 2n + m = 2^(a+1).
  const size_t n = (size_t{1} << (a + 1)) - count;
  std::vector<int> lengths(count, a + 1);
  std::fill(lengths.begin(), lengths.begin() + n, a);
  return lengths;
}

struct StrictCase {
  std::string name;
  std::string body;    // raw deflate
  std::string output;  // what a decoder that takes the body makes of it
  const char* zlib_says;
  Backend lenient;  // the backend whose library takes the body as it is
  // Whether the library built against still takes it: a newer one may
  // have become strict, and the case then guards the next version.
  bool lenient_in_this_build = true;
};

// libdeflate 1.14 (Debian 12) takes a code-length repeat that runs past
// the last length; 1.25 (Debian sid) refuses it, as zlib does.
constexpr bool kLibdeflateRepeatsPastTheEnd =
    LIBDEFLATE_VERSION_MAJOR == 1 && LIBDEFLATE_VERSION_MINOR < 25;

// Fixed-code bits: literals 0..143 are 8 bits from 0x30, lengths 256..279
// 7 bits from 0, 280..287 8 bits from 0xc0; distances 5 bits.
void PutFixedLiteral(uint8_t literal, BitWriter* out) {
  ASSERT_LT(literal, 144);
  out->PutCode(0x30 + literal, 8);
}

// A fixed block's header, and 'a' as its first literal.
void PutFixedBlockOfA(bool final_block, BitWriter* out) {
  out->Put(final_block ? 1 : 0, 1);
  out->Put(1, 2);
  PutFixedLiteral('a', out);
}

// A Huffman codeword: its bits, most significant first, and its length.
struct Codeword {
  uint32_t bits;
  int length;
};

// The last block, a dynamic one after what `w` holds already: `header`,
// then `body`.
std::string LastDynamicBlock(const DynamicHeader& header,
                             const std::vector<Codeword>& body,
                             BitWriter w = BitWriter()) {
  PutDynamicHeader(header, true, &w);
  for (const Codeword& codeword : body) {
    w.PutCode(codeword.bits, codeword.length);
  }
  return w.Finish();
}

std::vector<StrictCase> StrictCases() {
  std::vector<StrictCase> cases;
  // A fixed block: 'a', then a reserved length symbol (libdeflate: 258)
  // at distance 1.
  for (int symbol : {286, 287}) {
    BitWriter w;
    PutFixedBlockOfA(true, &w);
    w.PutCode(0xc0 + (symbol - 280), 8);
    w.PutCode(0, 5);
    w.PutCode(0, 7);
    cases.push_back({absl::StrCat("fixed_litlen_", symbol), w.Finish(),
                     std::string(259, 'a'), "invalid literal/length code",
                     Backend::kLibdeflate});
  }
  // A fixed block making 24769 bytes of 'a' (matches of 258 at distance
  // 1), then copying 3 from a reserved distance symbol (libdeflate: 24577 +
  // 13 extra bits).
  for (int symbol : {30, 31}) {
    BitWriter w;
    PutFixedBlockOfA(true, &w);
    for (int i = 0; i < 96; ++i) {
      w.PutCode(0xc5, 8);  // 285: length 258
      w.PutCode(0, 5);
    }
    w.PutCode(1, 7);  // length 3
    w.PutCode(static_cast<uint32_t>(symbol), 5);
    w.Put(0, 13);
    w.PutCode(0, 7);
    cases.push_back({absl::StrCat("fixed_dist_", symbol), w.Finish(),
                     std::string(1 + 96 * 258 + 3, 'a'),
                     "invalid distance code", Backend::kLibdeflate});
  }
  // Dynamic headers declaring more symbols than deflate has: complete codes
  // over 287/288 literal/lengths or 31/32 distances, a body of "hi".
  const std::vector<std::pair<size_t, size_t>> counts = {
      {287, 1}, {288, 1}, {257, 31}, {257, 32}};
  for (auto [litlen_count, dist_count] : counts) {
    DynamicHeader header;
    header.litlen = CompleteCode(litlen_count, 8);
    header.dist =
        dist_count == 1 ? std::vector<int>{0} : CompleteCode(dist_count, 4);
    const std::vector<uint32_t> codes = CanonicalCodes(header.litlen);
    std::vector<Codeword> body;
    for (int symbol : {int{'h'}, int{'i'}, 256}) {
      body.push_back({codes[symbol], header.litlen[symbol]});
    }
    cases.push_back({absl::StrCat("dynamic_", litlen_count, "_", dist_count),
                     LastDynamicBlock(header, body), "hi",
                     "too many length or distance symbols",
                     Backend::kLibdeflate});
  }
  // The literal/length codes of the cases below: 'a' 0 and end-of-block 1;
  // or 'a' 0, end-of-block 10 and length 3 11.
  const std::vector<int> a_end = Lengths(257, {{'a', 1}, {256, 1}});
  const std::vector<int> a_end_3 = Lengths(258, {{'a', 1}, {256, 2}, {257, 2}});
  constexpr Codeword a = {0, 1};
  constexpr Codeword end_1 = {1, 1};
  constexpr Codeword end_2 = {2, 2};
  constexpr Codeword length_3 = {3, 2};
  // 'a' (1 bit, code 0) and end-of-block (2 bits, code 10): a literal/length
  // code with a codeword no symbol has; ISA-L takes it, never used.
  cases.push_back({"incomplete_litlen",
                   LastDynamicBlock({Lengths(257, {{'a', 1}, {256, 2}}), {0}},
                                    {a, a, a, a, a, end_2}),
                   "aaaaa", "invalid literal/lengths set", Backend::kIsal});
  // 'a', end-of-block and length 3; one 2-bit distance code (00): an
  // incomplete distance code, "a" then 3 more at distance 1.
  cases.push_back(
      {"incomplete_dist",
       LastDynamicBlock({a_end_3, {2, 0}}, {a, length_3, {0, 2}, end_2}),
       "aaaa", "invalid distances set", Backend::kIsal});
  // The code-length code without 18: incomplete.
  DynamicHeader without_18 = {a_end, {0}};
  without_18.precode_without_18 = true;
  cases.push_back({"incomplete_precode",
                   LastDynamicBlock(without_18, {a, a, end_1}), "aa",
                   "invalid code lengths set", Backend::kIsal});
  // A run of zeros 10 past the last distance length.
  DynamicHeader repeat_past_end = {a_end, {0}};
  repeat_past_end.extra_zeros = 10;
  cases.push_back({"repeat_past_end",
                   LastDynamicBlock(repeat_past_end, {a, a, a, end_1}), "aaa",
                   "invalid bit length repeat", Backend::kLibdeflate,
                   kLibdeflateRepeatsPastTheEnd});
  // One 1-bit distance code, and a match using its unused codeword 1
  // (libdeflate: the one distance, 1).
  cases.push_back(
      {"one_dist_code_other_bit",
       LastDynamicBlock({a_end_3, {1}}, {a, length_3, {1, 1}, end_2}), "aaaa",
       "invalid distance code", Backend::kLibdeflate});
  // No distance code at all, and a match (libdeflate: distance 1, 1 bit).
  cases.push_back(
      {"no_dist_code_used",
       LastDynamicBlock({a_end_3, {0}}, {a, length_3, {0, 1}, end_2}), "aaaa",
       "invalid distance code", Backend::kLibdeflate});
  // A fixed block with 'a', then a last block whose only literal/length
  // code is a 1-bit end-of-block, ended by the unused codeword 1.
  BitWriter fixed_a;
  PutFixedBlockOfA(false, &fixed_a);
  fixed_a.PutCode(0, 7);
  cases.push_back(
      {"one_litlen_code_other_bit",
       LastDynamicBlock({Lengths(257, {{256, 1}}), {0}}, {{1, 1}}, fixed_a),
       "a", "invalid literal/length code", Backend::kLibdeflate});
  return cases;
}

// Whether the library behind `backend` takes `body` as raw deflate, making
// `output` of it: the leniency a case is about, shown on the library alone.
bool LibraryTakes(Backend backend, const std::string& body,
                  const std::string& output) {
  std::string out(output.size() + 64, '\0');
  if (backend == Backend::kLibdeflate) {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    size_t produced = 0;
    const libdeflate_result result = libdeflate_deflate_decompress(
        d, body.data(), body.size(), out.data(), out.size(), &produced);
    libdeflate_free_decompressor(d);
    return result == LIBDEFLATE_SUCCESS && out.substr(0, produced) == output;
  }
  inflate_state state;
  isal_inflate_init(&state);
  state.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(body.data()));
  state.avail_in = static_cast<uint32_t>(body.size());
  state.next_out = reinterpret_cast<uint8_t*>(out.data());
  state.avail_out = static_cast<uint32_t>(out.size());
  state.crc_flag = ISAL_DEFLATE;
  const int result = isal_inflate_stateless(&state);
  return result == ISAL_DECOMP_OK &&
         out.substr(0, out.size() - state.avail_out) == output;
}

TEST(StrictDecodeTest, TheCasesProbeRealLeniencies) {
  for (const StrictCase& c : StrictCases()) {
    EXPECT_EQ(LibraryTakes(c.lenient, c.body, c.output),
              c.lenient_in_this_build)
        << c.name << ": " << BackendName(c.lenient)
        << (c.lenient_in_this_build
                ? " does not take it; the case tests nothing"
                : " takes it again");
    std::string plain;
    EXPECT_FALSE(plain_zlib::InflateOne(Wrap(Format::kGzip, c.body, c.output),
                                        Format::kGzip, &plain))
        << c.name << ": plain zlib takes it";
  }
}

// Held to zlib's rules, every backend refuses what zlib refuses, with
// zlib's words.
TEST(StrictDecodeTest, EveryBackendRefusesWhatZlibRefuses) {
  for (const StrictCase& c : StrictCases()) {
    for (Format format : kFormats) {
      const std::string stream = Wrap(format, c.body, c.output);
      for (size_t limit : {kNoLimit, c.output.size(), size_t{1}}) {
        for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts}) {
          const std::vector<absl::string_view> pieces = Slice(stream, slicing);
          const Answer zlib =
              DecompressWith(Backend::kZlib, format, pieces, limit);
          if (limit >= c.output.size()) {
            EXPECT_EQ(zlib.code, absl::StatusCode::kDataLoss) << c.name;
            EXPECT_NE(zlib.message.find(c.zlib_says), std::string::npos)
                << c.name << ": " << zlib.message;
          }
          for (Backend backend : {Backend::kLibdeflate, Backend::kIsal}) {
            const Answer got =
                DecompressWith(backend, format, pieces, limit, kNoLimit,
                               Strictness::kExactZlibRefusals);
            EXPECT_EQ(got.code, zlib.code)
                << c.name << " " << FormatName(format) << " limit " << limit
                << " " << test_support::SlicingName(slicing) << ": "
                << BackendName(backend) << " said \"" << got.message
                << "\", zlib \"" << zlib.message << "\"";
            EXPECT_EQ(got.message, zlib.message)
                << c.name << " " << BackendName(backend);
            EXPECT_LE(got.given, limit == kNoLimit ? kNoLimit : limit + 1);
          }
        }
      }
    }
  }
}

// By default a fast decoder reads the message once, by its own rules: the
// library that takes a body zlib refuses takes it through the codec too
// (libdeflate only in gzip, which alone has the size its one pass needs),
// to the output whose checksum the stream carries, and only within the
// limit; over the limit, zlib decides.
TEST(DefaultDecodeTest, AFastDecoderMayTakeWhatOnlyItsLibraryTakes) {
  size_t taken = 0;
  for (const StrictCase& c : StrictCases()) {
    if (!c.lenient_in_this_build) continue;
    for (Format format : kFormats) {
      if (c.lenient == Backend::kLibdeflate && format != Format::kGzip) {
        continue;
      }
      const std::string stream = Wrap(format, c.body, c.output);
      for (Slicing slicing : {Slicing::kWhole, Slicing::kRandomCuts}) {
        const std::vector<absl::string_view> pieces = Slice(stream, slicing);
        const Answer got =
            DecompressWith(c.lenient, format, pieces, c.output.size());
        ASSERT_EQ(got.code, absl::StatusCode::kOk)
            << c.name << " " << FormatName(format) << " "
            << test_support::SlicingName(slicing) << ": " << got.message;
        EXPECT_TRUE(got.out == c.output) << c.name;
        ++taken;
        const Answer zlib =
            DecompressWith(Backend::kZlib, format, pieces, c.output.size() - 1);
        const Answer over =
            DecompressWith(c.lenient, format, pieces, c.output.size() - 1);
        EXPECT_EQ(over.code, zlib.code) << c.name << ": " << over.message;
        EXPECT_EQ(over.message, zlib.message) << c.name;
      }
    }
  }
  EXPECT_GT(taken, 0u);
}

// Bytes after a body only the fast decoder's library takes: the message is
// refused, in zlib's words (which find the body's fault first), not as
// trailing bytes.
TEST(DefaultDecodeTest, BytesAfterALenientBodyGetZlibsAnswer) {
  size_t checked = 0;
  for (const StrictCase& c : StrictCases()) {
    if (!c.lenient_in_this_build) continue;
    for (Format format : kFormats) {
      const std::string stream = Wrap(format, c.body, c.output) + "x";
      const std::vector<absl::string_view> pieces = {stream};
      const Answer zlib =
          DecompressWith(Backend::kZlib, format, pieces, kNoLimit);
      ASSERT_EQ(zlib.code, absl::StatusCode::kDataLoss) << c.name;
      const Answer got = DecompressWith(c.lenient, format, pieces, kNoLimit);
      EXPECT_EQ(got.code, zlib.code) << c.name << ": " << got.message;
      EXPECT_EQ(got.message, zlib.message)
          << c.name << " " << FormatName(format) << " by "
          << BackendName(c.lenient);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace pooled_gzip::internal
