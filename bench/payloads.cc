#include "payloads.h"

#include <cstdint>

namespace pooled_gzip::bench {
namespace {

// SplitMix64: tiny, fast, and identical everywhere, unlike the standard
// library's distributions, whose output differs between implementations.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }
  // Skewed towards 0, roughly like word frequencies in real text.
  size_t Skewed(size_t n) {
    const double u = static_cast<double>(Next() >> 11) * 0x1.0p-53;
    return static_cast<size_t>(u * u * u * static_cast<double>(n));
  }

 private:
  uint64_t state_;
};

constexpr const char* kWords[] = {
    "the",         "of",          "and",        "to",          "a",
    "in",          "is",          "that",       "for",         "it",
    "as",          "was",         "with",       "be",          "by",
    "on",          "not",         "he",         "this",        "are",
    "or",          "his",         "from",       "at",          "which",
    "but",         "have",        "an",         "had",         "they",
    "you",         "were",        "their",      "one",         "all",
    "we",          "can",         "her",        "has",         "there",
    "been",        "if",          "more",       "when",        "will",
    "would",       "who",         "so",         "no",          "request",
    "server",      "client",      "message",    "stream",      "channel",
    "latency",     "payload",     "compress",   "response",    "deadline",
    "service",     "method",      "status",     "error",       "retry",
    "timeout",     "connection",  "handshake",  "metadata",    "header",
    "buffer",      "window",      "context",    "thread",      "memory",
    "allocate",    "release",     "pool",       "between",     "because",
    "through",     "without",     "against",    "during",      "before",
    "after",       "under",       "around",     "another",     "several",
    "important",   "different",   "following",  "available",   "particular",
    "information", "development", "government", "performance", "operation",
};
constexpr size_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

constexpr const char* kNames[] = {
    "alice",  "bob",   "carol", "dave",    "erin",   "frank",  "grace",
    "heidi",  "ivan",  "judy",  "mallory", "niaj",   "olivia", "peggy",
    "rupert", "sybil", "trent", "uma",     "victor", "walter",
};
constexpr size_t kNameCount = sizeof(kNames) / sizeof(kNames[0]);

std::string MakeText(size_t size) {
  Rng rng(0x7465787421ull);
  std::string out;
  out.reserve(size + 64);
  bool sentence_start = true;
  while (out.size() < size) {
    std::string word = kWords[rng.Skewed(kWordCount)];
    if (rng.Below(40) == 0) {
      // Identifiers and numbers, as in logs and JSON-ish text.
      word = std::string(kNames[rng.Below(kNameCount)]) + "_" +
             std::to_string(rng.Below(100000));
    }
    if (sentence_start) word[0] = static_cast<char>(word[0] - 'a' + 'A');
    out += word;
    sentence_start = false;
    const size_t mark = rng.Below(100);
    if (mark < 8) {
      out += ". ";
      sentence_start = true;
    } else if (mark < 13) {
      out += ", ";
    } else if (mark < 14) {
      out += ".\n";
      sentence_start = true;
    } else {
      out += ' ';
    }
  }
  out.resize(size);
  return out;
}

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendTag(int field, int wire_type, std::string* out) {
  AppendVarint(static_cast<uint64_t>(field) << 3 | wire_type, out);
}

void AppendLengthDelimited(int field, const std::string& bytes,
                           std::string* out) {
  AppendTag(field, 2, out);
  AppendVarint(bytes.size(), out);
  *out += bytes;
}

// One record shaped like typical RPC data: ids, a name, a timestamp, an
// enum, a random token and a nested message with a label.
std::string MakeRecord(Rng& rng, uint64_t id) {
  std::string record;
  AppendTag(1, 0, &record);
  AppendVarint(id, &record);
  AppendLengthDelimited(
      2, std::string(kNames[rng.Below(kNameCount)]) + "@example.com", &record);
  AppendTag(3, 1, &record);  // fixed64: a timestamp in microseconds
  const uint64_t timestamp = 1700000000000000ull + id * 1000 + rng.Below(1000);
  for (int i = 0; i < 8; ++i) {
    record.push_back(static_cast<char>(timestamp >> (8 * i)));
  }
  AppendTag(4, 0, &record);
  AppendVarint(rng.Skewed(5), &record);
  std::string token(16, '\0');  // a random id, incompressible
  for (char& c : token) c = static_cast<char>(rng.Next());
  AppendLengthDelimited(5, token, &record);
  std::string nested;
  AppendTag(1, 0, &nested);
  AppendVarint(rng.Skewed(100000), &nested);
  AppendTag(2, 0, &nested);
  AppendVarint(rng.Below(1 << 20), &nested);
  AppendLengthDelimited(3, kWords[rng.Skewed(kWordCount)], &nested);
  AppendLengthDelimited(6, nested, &record);
  return record;
}

std::string MakeProto(size_t size) {
  Rng rng(0x70726f746full);
  std::string out;
  out.reserve(size + 128);
  uint64_t id = 100000;
  while (out.size() < size) {
    id += 1 + rng.Skewed(50);
    // A repeated message field, as a list response would carry.
    AppendLengthDelimited(1, MakeRecord(rng, id), &out);
  }
  out.resize(size);
  return out;
}

std::string MakeRandom(size_t size) {
  Rng rng(0x72616e646f6dull);
  std::string out(size, '\0');
  for (char& c : out) c = static_cast<char>(rng.Next());
  return out;
}

}  // namespace

const char* PayloadKindName(PayloadKind kind) {
  switch (kind) {
    case PayloadKind::kText:
      return "text";
    case PayloadKind::kProto:
      return "proto";
    case PayloadKind::kRandom:
      return "random";
  }
  return "?";
}

const std::vector<PayloadKind>& AllPayloadKinds() {
  static const auto* kinds = new std::vector<PayloadKind>{
      PayloadKind::kText, PayloadKind::kProto, PayloadKind::kRandom};
  return *kinds;
}

const std::vector<size_t>& AllPayloadSizes() {
  static const auto* sizes =
      new std::vector<size_t>{1, 1 << 10, 8 << 10, 64 << 10, 1 << 20};
  return *sizes;
}

std::string MakePayload(PayloadKind kind, size_t size) {
  switch (kind) {
    case PayloadKind::kText:
      return MakeText(size);
    case PayloadKind::kProto:
      return MakeProto(size);
    case PayloadKind::kRandom:
      return MakeRandom(size);
  }
  return std::string(size, 'x');
}

std::string SizeLabel(size_t size) {
  if (size >= (1 << 20) && size % (1 << 20) == 0) {
    return std::to_string(size >> 20) + " MiB";
  }
  if (size >= (1 << 10) && size % (1 << 10) == 0) {
    return std::to_string(size >> 10) + " KiB";
  }
  return std::to_string(size) + " B";
}

}  // namespace pooled_gzip::bench
