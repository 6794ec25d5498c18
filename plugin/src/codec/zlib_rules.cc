#include "codec/zlib_rules.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>

#include "codec/bit_reader.h"

namespace pooled_gzip {
namespace internal {
namespace {

using deflate::BitReader;
using deflate::Step;

// A decode table entry: bits 0-7 how many bits the symbol takes with its
// extra bits (for a subtable pointer: its index bits); bits 8-15 its kind;
// bits 16-31 the symbol (precode) or the subtable's offset.
constexpr uint32_t kLiteral = 1u << 8;
constexpr uint32_t kEndOfBlock = 1u << 9;
constexpr uint32_t kMatch = 1u << 10;
constexpr uint32_t kInvalid = 1u << 11;  // zlib refuses this codeword
constexpr uint32_t kSubtable = 1u << 12;

constexpr int kMaxCodeBits = 15;
constexpr int kLitlenRootBits = 10;
constexpr int kDistRootBits = 8;
constexpr int kPrecodeRootBits = 7;  // code-length codes are at most 7 bits
// Room for the subtables too: zlib's examples/enough.c bounds 288 and 32
// symbols at these root sizes by 1334 and 402 entries. Were that wrong, a
// table would not be built and zlib would decide: slower, still right.
constexpr size_t kLitlenEntries = 1334;
constexpr size_t kDistEntries = 402;

constexpr uint8_t kLengthExtraBits[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
                                          1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                          4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint8_t kDistExtraBits[30] = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                                        4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                                        9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

enum class Alphabet { kPrecode, kLitlen, kDist };

// The entry for `symbol` coded in `length` bits.
uint32_t EntryFor(Alphabet alphabet, unsigned symbol, unsigned length) {
  switch (alphabet) {
    case Alphabet::kPrecode:
      return (symbol << 16) | length;
    case Alphabet::kLitlen:
      if (symbol < 256) return kLiteral | length;
      if (symbol == 256) return kEndOfBlock | length;
      // zlib: "invalid literal/length code" for 286 and 287 (fixed blocks).
      if (symbol > 285) return kInvalid | length;
      return kMatch | (length + kLengthExtraBits[symbol - 257]);
    case Alphabet::kDist:
      // zlib: "invalid distance code" for 30 and 31 (fixed blocks).
      if (symbol > 29) return kInvalid | length;
      return length + kDistExtraBits[symbol];
  }
  return kInvalid | length;
}

enum class Code {
  kRefused,   // zlib refuses the lengths: over-subscribed or incomplete
  kComplete,  // every codeword means a symbol
  kSparse,    // zlib takes it (one 1-bit code, or no distance code at all),
              // but a body that uses the missing codeword is refused
};

// What zlib makes of these lengths ("invalid code lengths set", "invalid
// literal/lengths set", "invalid distances set" when it refuses them).
Code Classify(Alphabet alphabet, const uint8_t* lengths, unsigned count,
              unsigned* per_length, int* max_length) {
  std::fill(per_length, per_length + kMaxCodeBits + 1, 0);
  for (unsigned i = 0; i < count; ++i) ++per_length[lengths[i]];
  int max = kMaxCodeBits;
  while (max > 0 && per_length[max] == 0) --max;
  *max_length = max;
  int left = 1;
  for (int length = 1; length <= kMaxCodeBits; ++length) {
    left = (left << 1) - static_cast<int>(per_length[length]);
    if (left < 0) return Code::kRefused;
  }
  if (max != 0 && left == 0) return Code::kComplete;
  // zlib's rule: code-length codes must be complete; the others may be
  // empty (its table then refuses every codeword, and the literal/length
  // code always has an end-of-block) or a single 1-bit code.
  if (alphabet == Alphabet::kPrecode || max > 1) return Code::kRefused;
  return Code::kSparse;
}

// A two-level decode table, built as zlib's inflate_table builds it.
Code BuildTable(Alphabet alphabet, const uint8_t* lengths, unsigned count,
                int root, uint32_t* table, size_t capacity) {
  unsigned per_length[kMaxCodeBits + 1];
  int max;
  const Code kind = Classify(alphabet, lengths, count, per_length, &max);
  if (kind == Code::kRefused) return kind;
  if (kind == Code::kSparse) {
    std::fill(table, table + (size_t{1} << root), kInvalid | 1);
    if (max == 0) return kind;
  }
  // Symbols sorted by length, then by value: canonical code order.
  unsigned offsets[kMaxCodeBits + 2] = {};
  for (int length = 1; length <= kMaxCodeBits; ++length) {
    offsets[length + 1] = offsets[length] + per_length[length];
  }
  uint16_t sorted[288];
  for (unsigned i = 0; i < count; ++i) {
    if (lengths[i] != 0)
      sorted[offsets[lengths[i]]++] = static_cast<uint16_t>(i);
  }
  const unsigned total = offsets[kMaxCodeBits + 1];  // symbols with a code
  const uint32_t root_mask = (1u << root) - 1;
  uint32_t huff = 0;  // the current code, bit-reversed, as zlib keeps it
  size_t next = size_t{1} << root;  // where the next subtable goes
  uint32_t low = ~0u;               // root index of the current subtable
  size_t sub_base = 0;
  int sub_bits = 0;
  unsigned remaining[kMaxCodeBits + 1];
  std::copy(std::begin(per_length), std::end(per_length), remaining);
  for (unsigned n = 0; n < total; ++n) {
    const unsigned symbol = sorted[n];
    const int length = lengths[symbol];
    const uint32_t entry = EntryFor(alphabet, symbol, length);
    if (length <= root) {
      for (uint32_t i = huff; i <= root_mask; i += 1u << length) {
        table[i] = entry;
      }
    } else {
      if ((huff & root_mask) != low) {
        // A new subtable, sized as zlib sizes it from the lengths left.
        sub_bits = length - root;
        int room = 1 << sub_bits;
        while (sub_bits + root < max) {
          room -= static_cast<int>(remaining[sub_bits + root]);
          if (room <= 0) break;
          ++sub_bits;
          room <<= 1;
        }
        low = huff & root_mask;
        sub_base = next;
        next += size_t{1} << sub_bits;
        if (next > capacity) return Code::kRefused;
        table[low] = kSubtable | (static_cast<uint32_t>(sub_base) << 16) |
                     static_cast<uint32_t>(sub_bits);
      }
      const uint32_t sub_mask = (1u << sub_bits) - 1;
      for (uint32_t i = huff >> root; i <= sub_mask;
           i += 1u << (length - root)) {
        table[sub_base + i] = entry;
      }
    }
    --remaining[length];
    // The next code of this length, bit-reversed (zlib's increment).
    uint32_t increment = 1u << (length - 1);
    while ((huff & increment) != 0) increment >>= 1;
    huff = increment != 0 ? (huff & (increment - 1)) + increment : 0;
  }
  return kind;
}

uint32_t Lookup(const uint32_t* table, int root, uint64_t bits) {
  uint32_t entry = table[bits & ((1u << root) - 1)];
  if ((entry & kSubtable) != 0) {
    entry =
        table[(entry >> 16) + ((bits >> root) & ((1u << (entry & 0xff)) - 1))];
  }
  return entry;
}

// Refuses what zlib refuses: codewords no symbol has, and 286, 287, 30, 31.
struct Symbols {
  const uint32_t* litlen;
  const uint32_t* dist;
  Step operator()(uint64_t* buffer, unsigned* count) const {
    // Branch-free but for the end of the block: whether a symbol is a
    // literal or a match is as unpredictable as the data, and a mispredicted
    // branch costs more than the distance lookup done for every symbol.
    const uint32_t entry = Lookup(litlen, kLitlenRootBits, *buffer);
    const uint64_t after = *buffer >> (entry & 0xff);
    const uint32_t distance = Lookup(dist, kDistRootBits, after);
    const uint32_t match = 0u - ((entry & kMatch) >> 10);
    const uint32_t distance_bits = distance & 0xff & match;
    *buffer = after >> distance_bits;
    *count -= (entry & 0xff) + distance_bits;
    if (((entry & (kEndOfBlock | kInvalid)) | (distance & kInvalid & match)) ==
        0) {
      return Step::kMore;
    }
    return (entry & kEndOfBlock) != 0 ? Step::kEndOfBlock : Step::kRefused;
  }
};

struct FixedTables {
  std::array<uint32_t, kLitlenEntries> litlen;
  std::array<uint32_t, kDistEntries> dist;
  FixedTables() {
    uint8_t lengths[288 + 32];
    std::fill(lengths, lengths + 144, 8);
    std::fill(lengths + 144, lengths + 256, 9);
    std::fill(lengths + 256, lengths + 280, 7);
    std::fill(lengths + 280, lengths + 288, 8);
    std::fill(lengths + 288, lengths + 320, 5);
    BuildTable(Alphabet::kLitlen, lengths, 288, kLitlenRootBits, litlen.data(),
               litlen.size());
    BuildTable(Alphabet::kDist, lengths + 288, 32, kDistRootBits, dist.data(),
               dist.size());
  }
};

const FixedTables& Fixed() {
  static const FixedTables* const tables = new FixedTables;
  return *tables;
}

// A dynamic block's header, checked as zlib checks it. Builds the tables
// unless the block is the last and both codes are `complete`.
bool ReadDynamicHeader(BitReader* in, bool final_block, uint32_t* litlen,
                       uint32_t* dist, bool* complete) {
  static constexpr uint8_t kPrecodeOrder[19] = {
      16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  if (!in->Refill()) return false;
  const unsigned litlen_count = in->Take(5) + 257;
  const unsigned dist_count = in->Take(5) + 1;
  const unsigned precode_count = in->Take(4) + 4;
  // zlib: "too many length or distance symbols".
  if (litlen_count > 286 || dist_count > 30) return false;
  uint8_t precode_lengths[19] = {};
  for (unsigned i = 0; i < precode_count; ++i) {
    if (!in->Refill()) return false;
    precode_lengths[kPrecodeOrder[i]] = static_cast<uint8_t>(in->Take(3));
  }
  uint32_t precode[1u << kPrecodeRootBits];
  if (BuildTable(Alphabet::kPrecode, precode_lengths, 19, kPrecodeRootBits,
                 precode, std::size(precode)) != Code::kComplete) {
    return false;
  }
  const unsigned total = litlen_count + dist_count;
  uint8_t lengths[286 + 30];
  unsigned have = 0;
  while (have < total) {
    if (!in->Refill()) return false;
    const uint32_t entry = precode[in->bits() & ((1u << kPrecodeRootBits) - 1)];
    in->Drop(entry & 0xff);
    const unsigned symbol = entry >> 16;
    if (symbol < 16) {
      lengths[have++] = static_cast<uint8_t>(symbol);
      continue;
    }
    uint8_t value = 0;
    unsigned repeat;
    if (symbol == 16) {
      if (have == 0) return false;  // "invalid bit length repeat"
      value = lengths[have - 1];
      repeat = 3 + in->Take(2);
    } else if (symbol == 17) {
      repeat = 3 + in->Take(3);
    } else {
      repeat = 11 + in->Take(7);
    }
    if (have + repeat > total) return false;  // "invalid bit length repeat"
    std::fill(lengths + have, lengths + have + repeat, value);
    have += repeat;
  }
  // zlib: "invalid code -- missing end-of-block".
  if (lengths[256] == 0) return false;
  unsigned per_length[kMaxCodeBits + 1];
  int max;
  const Code litlen_code =
      Classify(Alphabet::kLitlen, lengths, litlen_count, per_length, &max);
  const Code dist_code = Classify(Alphabet::kDist, lengths + litlen_count,
                                  dist_count, per_length, &max);
  if (litlen_code == Code::kRefused || dist_code == Code::kRefused) {
    return false;
  }
  *complete = litlen_code == Code::kComplete && dist_code == Code::kComplete;
  if (final_block && *complete) return true;
  return BuildTable(Alphabet::kLitlen, lengths, litlen_count, kLitlenRootBits,
                    litlen, kLitlenEntries) != Code::kRefused &&
         BuildTable(Alphabet::kDist, lengths + litlen_count, dist_count,
                    kDistRootBits, dist, kDistEntries) != Code::kRefused;
}

}  // namespace

bool MeetsZlibRules(absl::Span<const absl::string_view> pieces, size_t skip) {
  BitReader in(pieces, skip);
  uint32_t litlen[kLitlenEntries];
  uint32_t dist[kDistEntries];
  bool final_block = false;
  while (!final_block) {
    if (!in.Refill()) return false;
    final_block = in.Take(1) != 0;
    switch (in.Take(2)) {
      case 0:
        if (!in.SkipStored()) return false;
        break;
      case 1:
        if (!in.ReadBody(Symbols{Fixed().litlen.data(), Fixed().dist.data()})) {
          return false;
        }
        break;
      case 2: {
        bool complete = false;
        if (!ReadDynamicHeader(&in, final_block, litlen, dist, &complete)) {
          return false;
        }
        // Every codeword is a symbol zlib takes: nothing left to check.
        if (final_block && complete) return true;
        if (!in.ReadBody(Symbols{litlen, dist})) return false;
        break;
      }
      default:
        return false;  // "invalid block type"
    }
  }
  return !in.Overrun();
}

}  // namespace internal
}  // namespace pooled_gzip
