#include "payloads.h"

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "records.pb.h"

namespace pooled_gzip::payloads {
namespace {

// std::mt19937_64's output is fixed by the standard, but the std::
// distributions are not (libstdc++, libc++ and MSVC map to a range
// differently), so ranges are mapped here, in integers only.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t Next() { return engine_(); }

  // Uniform in [0, n), n > 0. The modulo bias is below 2^-40 for the n
  // used here, far below anything a compression ratio could show.
  uint64_t Below(uint64_t n) { return Next() % n; }

  // Uniform in [low, high].
  int64_t Between(int64_t low, int64_t high) {
    return low +
           static_cast<int64_t>(Below(static_cast<uint64_t>(high - low) + 1));
  }

  bool Percent(int percent) {
    return Below(100) < static_cast<uint64_t>(percent);
  }

  // In [0, n), skewed towards 0 as word frequencies are: u^3 for a uniform
  // u in [0, 1), computed on 21-bit integers so that no floating-point
  // rounding can differ between machines.
  uint64_t Skewed(uint64_t n) {
    const uint64_t u = Next() >> 43;
    const uint64_t cube = u * u * u;  // below 2^63
    return ((cube >> 31) * n) >> 32;
  }

  // In [0, n), leaning towards 0 less steeply: the smaller of two uniform
  // draws, for names and identifiers, where a few favourites are common but
  // none dominates.
  uint64_t Leaning(uint64_t n) {
    const uint64_t a = Below(n);
    const uint64_t b = Below(n);
    return a < b ? a : b;
  }

  template <typename T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Below(N)];
  }
  template <typename T, size_t N>
  const T& PickSkewed(const T (&items)[N]) {
    return items[Skewed(N)];
  }
  template <typename T, size_t N>
  const T& PickLeaning(const T (&items)[N]) {
    return items[Leaning(N)];
  }

 private:
  std::mt19937_64 engine_;
};

// Concatenates `parts`. The elements of a braced list are evaluated in
// order, unlike the operands of +, so Cat({Noun(), "_", Noun()}) draws from
// the generator in the same order with every compiler.
std::string Cat(std::initializer_list<std::string> parts) {
  std::string out;
  for (const std::string& part : parts) out += part;
  return out;
}

// Each kind has its own stream for a given seed, except that kJson draws
// kRecords' stream, so that the two carry the same users.
Rng RngFor(Kind kind, uint32_t seed) {
  const uint64_t stream =
      static_cast<uint64_t>(kind == Kind::kJson ? Kind::kRecords : kind);
  return Rng((uint64_t{0x9E3779B9} + stream) << 32 | seed);
}

// --- kWords ----------------------------------------------------------------

// Byte for byte what echo::MakePayload always produced, which tests depend
// on. That used std::mt19937 with libstdc++'s uniform_int_distribution;
// the distribution's mapping (Lemire's multiply-and-reject, libstdc++ 11
// and later) is spelled out here so that other libraries produce the same.
std::string MakeWords(size_t size, uint32_t seed) {
  static constexpr const char* kWords[] = {
      "request", "user",  "status", "ok",     "latency", "region", "cache",
      "gzip",    "proto", "stream", "server", "client",  "id",     "true",
      "false",   "null",  "value",  "count",  "bytes",   "time"};
  constexpr uint32_t kCount = std::size(kWords);
  std::mt19937 random(seed);
  auto pick = [&random]() {
    uint64_t product = uint64_t{random()} * kCount;
    if (static_cast<uint32_t>(product) < kCount) {
      const uint32_t threshold = (0u - kCount) % kCount;
      while (static_cast<uint32_t>(product) < threshold) {
        product = uint64_t{random()} * kCount;
      }
    }
    return static_cast<size_t>(product >> 32);
  };
  std::string payload;
  payload.reserve(size + 16);
  while (payload.size() < size) {
    payload += kWords[pick()];
    payload += (random() % 8 == 0) ? '\n' : ' ';
  }
  payload.resize(size);
  return payload;
}

// --- kProse ----------------------------------------------------------------

constexpr const char* kProseWords[] = {
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

constexpr const char* kHandles[] = {
    "alice",  "bob",   "carol", "dave",    "erin",   "frank",  "grace",
    "heidi",  "ivan",  "judy",  "mallory", "niaj",   "olivia", "peggy",
    "rupert", "sybil", "trent", "uma",     "victor", "walter",
};

std::string MakeProse(size_t size, Rng& rng) {
  std::string out;
  out.reserve(size + 64);
  bool sentence_start = true;
  while (out.size() < size) {
    std::string word = rng.PickSkewed(kProseWords);
    if (rng.Below(40) == 0) {
      // Identifiers and numbers, as in logs.
      word = Cat({rng.Pick(kHandles), "_", std::to_string(rng.Below(100000))});
    }
    if (sentence_start) word[0] = static_cast<char>(word[0] - 'a' + 'A');
    out += word;
    sentence_start = false;
    const uint64_t mark = rng.Below(100);
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

// --- Users: kRecords and kJson ---------------------------------------------

constexpr const char* kFirstNames[] = {
    "James",  "Mary",   "Wei",    "Maria",  "Mohammed", "Olivia", "Hiroshi",
    "Emma",   "Carlos", "Sofia",  "Ahmed",  "Anna",     "Liam",   "Fatima",
    "Noah",   "Chen",   "Lucas",  "Aisha",  "Mateo",    "Yuki",   "Ethan",
    "Priya",  "Daniel", "Elena",  "Arjun",  "Chloe",    "Ivan",   "Amara",
    "Jonas",  "Leila",  "Thomas", "Ingrid", "Kwame",    "Nadia",  "Pedro",
    "Sakura", "Omar",   "Grace",  "Raj",    "Hannah",
};

constexpr const char* kLastNames[] = {
    "Smith",   "Wang",   "Garcia",   "Johnson", "Kim",     "Nguyen",
    "Müller",  "Silva",  "Brown",    "Li",      "Martin",  "Khan",
    "Rossi",   "Jones",  "Tanaka",   "Lopez",   "Wilson",  "Singh",
    "Petrov",  "Davis",  "Kowalski", "Dubois",  "Hansen",  "Okafor",
    "Cohen",   "Santos", "Andersen", "Ito",     "Fischer", "Murphy",
    "Ivanova", "Chen",   "Novak",    "Haddad",  "Larsen",  "Mensah",
};

constexpr const char* kDomains[] = {
    "gmail.com",   "example.com",      "outlook.com", "yahoo.com",
    "icloud.com",  "proton.me",        "acme.io",     "fastmail.com",
    "hotmail.com", "corp.example.org",
};

constexpr const char* kTags[] = {
    "beta",     "premium",       "newsletter", "admin",   "trial",
    "mobile",   "early-adopter", "vip",        "support", "partner",
    "internal", "churn-risk",    "enterprise", "edu",     "referral",
    "legacy",   "sso",           "2fa",        "api",     "billing-overdue",
};

constexpr const char* kStreets[] = {
    "Main",       "Oak",  "Maple",    "Cedar",   "Park",   "Elm",
    "Washington", "Lake", "Hill",     "Pine",    "Sunset", "River",
    "Church",     "Mill", "Highland", "Station", "Bridge", "King",
};

constexpr const char* kStreetSuffixes[] = {"St", "Ave", "Rd",  "Blvd",
                                           "Ln", "Dr",  "Way", "Ct"};

struct City {
  const char* name;
  const char* country_code;
};

constexpr City kCities[] = {
    {"New York", "US"},  {"London", "GB"},      {"Berlin", "DE"},
    {"Tokyo", "JP"},     {"São Paulo", "BR"},   {"Toronto", "CA"},
    {"Paris", "FR"},     {"Bangalore", "IN"},   {"Sydney", "AU"},
    {"Chicago", "US"},   {"Madrid", "ES"},      {"Seoul", "KR"},
    {"Lagos", "NG"},     {"Amsterdam", "NL"},   {"Austin", "US"},
    {"Stockholm", "SE"}, {"Mexico City", "MX"}, {"Warsaw", "PL"},
};

struct User {
  int64_t id = 0;
  std::string name;
  std::string email;
  int64_t created_ms = 0;
  int64_t updated_ms = 0;
  Record::Status status = Record::STATUS_UNSPECIFIED;
  std::vector<std::string> tags;
  std::vector<int64_t> friend_ids;
  bool has_address = false;
  std::string street;
  const City* city = nullptr;
  std::string postal_code;
  int score_hundredths = 0;
  bool verified = false;
  std::string external_id;
  int32_t login_count = 0;
};

std::string Lowercase(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// Emails are ASCII: a last name's non-ASCII letters become 'u'.
std::string EmailPart(const char* name) {
  std::string out;
  for (const char* p = name; *p != '\0'; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c < 0x80) {
      out += *p;
    } else if ((c & 0xC0) == 0xC0) {
      out += 'u';  // the lead byte of a UTF-8 sequence
    }
  }
  return Lowercase(out);
}

std::string Uuid(Rng& rng) {
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t high = rng.Next();
  uint64_t low = rng.Next();
  high = (high & ~uint64_t{0xF000}) | 0x4000;                // version 4
  low = (low & ~(uint64_t{3} << 62)) | (uint64_t{2} << 62);  // variant 1
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    const uint64_t word = i < 16 ? high : low;
    out += kHex[(word >> (60 - 4 * (i % 16))) & 0xF];
  }
  return out;
}

// An account table listed in id order: ids and creation times rise with
// gaps, as rows of a real table do; everything else is drawn per user.
class UserStream {
 public:
  explicit UserStream(Rng rng) : rng_(std::move(rng)) {
    first_id_ = rng_.Between(100000, 9000000);
    next_id_ = first_id_;
    // Somewhere in 2019..2023, in milliseconds since the epoch.
    created_ms_ = rng_.Between(1546300800, 1704067200) * 1000;
  }

  User Next() {
    User user;
    user.id = next_id_;
    next_id_ += 1 + rng_.Skewed(30);
    created_ms_ += rng_.Between(1000, 3600 * 1000);
    user.created_ms = created_ms_;
    user.updated_ms =
        rng_.Percent(30)
            ? created_ms_
            : created_ms_ + rng_.Between(1000, 400LL * 86400 * 1000);
    const char* first = rng_.PickLeaning(kFirstNames);
    const char* last = rng_.PickLeaning(kLastNames);
    user.name = std::string(first) + " " + last;
    static constexpr const char* kSeparators[] = {".", "", "_", "."};
    user.email = EmailPart(first) + rng_.Pick(kSeparators) + EmailPart(last);
    if (rng_.Percent(35)) user.email += std::to_string(rng_.Below(100));
    user.email += std::string("@") + rng_.PickSkewed(kDomains);
    const uint64_t status = rng_.Below(100);
    user.status = status < 82   ? Record::STATUS_ACTIVE
                  : status < 91 ? Record::STATUS_PENDING
                  : status < 97 ? Record::STATUS_SUSPENDED
                                : Record::STATUS_DELETED;
    for (uint64_t n = rng_.Skewed(5); n > 0; --n) {
      std::string tag = rng_.PickSkewed(kTags);
      bool seen = false;
      for (const std::string& t : user.tags) seen = seen || t == tag;
      if (!seen) user.tags.push_back(std::move(tag));
    }
    // Friends joined earlier; some of their ids are gaps, deleted accounts.
    for (uint64_t n = user.id > first_id_ ? rng_.Skewed(9) : 0; n > 0; --n) {
      user.friend_ids.push_back(rng_.Between(first_id_, user.id - 1));
    }
    user.has_address = rng_.Percent(75);
    if (user.has_address) {
      user.street = Cat({std::to_string(rng_.Between(1, 9999)), " ",
                         rng_.Pick(kStreets), " ", rng_.Pick(kStreetSuffixes)});
      user.city = &rng_.PickLeaning(kCities);
      user.postal_code = std::to_string(rng_.Between(10000, 99999));
    }
    user.score_hundredths = 500 - static_cast<int>(rng_.Skewed(400));
    user.verified = rng_.Percent(70);
    user.external_id = Uuid(rng_);
    user.login_count = static_cast<int32_t>(rng_.Skewed(5000));
    return user;
  }

 private:
  Rng rng_;
  int64_t first_id_ = 0;
  int64_t next_id_ = 0;
  int64_t created_ms_ = 0;
};

// Serialized by protobuf itself, one record per RecordBatch: concatenated,
// these are the serialization of one RecordBatch holding every record.
std::string MakeRecords(size_t size, Rng& rng) {
  UserStream users(rng);
  std::string out;
  out.reserve(size + 512);
  RecordBatch batch;
  while (out.size() < size) {
    const User user = users.Next();
    Record& record = *batch.add_records();
    record.set_id(user.id);
    record.set_name(user.name);
    record.set_email(user.email);
    record.mutable_created_at()->set_seconds(user.created_ms / 1000);
    record.mutable_created_at()->set_nanos(
        static_cast<int32_t>(user.created_ms % 1000) * 1000000);
    record.set_updated_at_ms(user.updated_ms);
    record.set_status(user.status);
    for (const std::string& tag : user.tags) record.add_tags(tag);
    for (int64_t id : user.friend_ids) record.add_friend_ids(id);
    if (user.has_address) {
      Address& address = *record.mutable_address();
      address.set_street(user.street);
      address.set_city(user.city->name);
      address.set_country_code(user.city->country_code);
      address.set_postal_code(user.postal_code);
    }
    record.set_score(user.score_hundredths / 100.0);
    record.set_verified(user.verified);
    record.set_external_id(user.external_id);
    record.set_login_count(user.login_count);
    // Serializing fails only for missing required fields, which proto3
    // messages do not have.
    if (!batch.AppendToString(&out)) std::abort();
    batch.Clear();
  }
  out.resize(size);
  return out;
}

// RFC 3339 in UTC with milliseconds, as JSON APIs write times.
std::string Rfc3339(int64_t ms) {
  const int64_t seconds = ms / 1000;
  int64_t days = seconds / 86400;
  const int64_t of_day = seconds % 86400;
  // Civil date from days since the epoch (Howard Hinnant's algorithm).
  days += 719468;
  const int64_t era = days / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  char buffer[64];  // room for any ints, as -Wformat-truncation wants
  std::snprintf(buffer, sizeof(buffer), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                static_cast<int>(year), static_cast<int>(month),
                static_cast<int>(day), static_cast<int>(of_day / 3600),
                static_cast<int>(of_day / 60 % 60),
                static_cast<int>(of_day % 60), static_cast<int>(ms % 1000));
  return buffer;
}

const char* StatusName(Record::Status status) {
  switch (status) {
    case Record::STATUS_ACTIVE:
      return "active";
    case Record::STATUS_PENDING:
      return "pending";
    case Record::STATUS_SUSPENDED:
      return "suspended";
    case Record::STATUS_DELETED:
      return "deleted";
    default:
      return "unspecified";
  }
}

// A number of hundredths as a JSON serializer prints the double: "4.25",
// "4.5", "4.0".
std::string Hundredths(int value) {
  std::string out = std::to_string(value / 100) + ".";
  const int fraction = value % 100;
  if (fraction % 10 == 0) return out + std::to_string(fraction / 10);
  return out + (fraction < 10 ? "0" : "") + std::to_string(fraction);
}

void AppendQuoted(const std::string& s, std::string* out) {
  *out += '"';
  *out += s;  // the word lists hold nothing JSON would escape
  *out += '"';
}

void AppendJsonUser(const User& user, std::string* out) {
  *out += "{\"id\":" + std::to_string(user.id) + ",\"name\":";
  AppendQuoted(user.name, out);
  *out += ",\"email\":";
  AppendQuoted(user.email, out);
  *out += ",\"created_at\":";
  AppendQuoted(Rfc3339(user.created_ms), out);
  *out += ",\"updated_at\":";
  AppendQuoted(Rfc3339(user.updated_ms), out);
  *out += ",\"status\":";
  AppendQuoted(StatusName(user.status), out);
  *out += ",\"tags\":[";
  for (size_t i = 0; i < user.tags.size(); ++i) {
    if (i > 0) *out += ',';
    AppendQuoted(user.tags[i], out);
  }
  *out += "],\"friend_ids\":[";
  for (size_t i = 0; i < user.friend_ids.size(); ++i) {
    if (i > 0) *out += ',';
    *out += std::to_string(user.friend_ids[i]);
  }
  *out += "],\"address\":";
  if (user.has_address) {
    *out += "{\"street\":";
    AppendQuoted(user.street, out);
    *out += ",\"city\":";
    AppendQuoted(user.city->name, out);
    *out += ",\"country_code\":";
    AppendQuoted(user.city->country_code, out);
    *out += ",\"postal_code\":";
    AppendQuoted(user.postal_code, out);
    *out += '}';
  } else {
    *out += "null";
  }
  *out += ",\"score\":" + Hundredths(user.score_hundredths);
  *out += user.verified ? ",\"verified\":true" : ",\"verified\":false";
  *out += ",\"external_id\":";
  AppendQuoted(user.external_id, out);
  *out += ",\"login_count\":" + std::to_string(user.login_count) + "}";
}

// Compact, as APIs send it; the closing "]}" lies beyond any cut.
std::string MakeJson(size_t size, Rng& rng) {
  UserStream users(rng);
  std::string out = "{\"items\":[";
  out.reserve(size + 1024);
  bool first = true;
  while (out.size() < size) {
    if (!first) out += ',';
    first = false;
    AppendJsonUser(users.Next(), &out);
  }
  out.resize(size);
  return out;
}

// --- kSource ---------------------------------------------------------------

constexpr const char* kNouns[] = {
    "request",  "response", "buffer",  "channel", "stream",  "message",
    "context",  "pool",     "entry",   "header",  "frame",   "window",
    "deadline", "status",   "options", "config",  "session", "queue",
    "batch",    "record",   "slice",   "chunk",   "handler", "callback",
    "server",   "client",   "codec",   "state",   "result",  "error",
    "count",    "size",     "offset",  "limit",   "index",   "key",
    "value",    "name",     "id",      "timeout", "retry",   "level",
    "metadata", "payload",  "peer",    "address", "port",    "thread",
};

constexpr const char* kVerbs[] = {
    "Get",      "Set",      "Find",    "Create", "Release",  "Reset",
    "Flush",    "Write",    "Read",    "Parse",  "Encode",   "Decode",
    "Compress", "Send",     "Receive", "Update", "Add",      "Remove",
    "Check",    "Validate", "Apply",   "Build",  "Start",    "Stop",
    "Handle",   "Append",   "Process", "Lookup", "Register", "Drain",
};

constexpr const char* kScalarTypes[] = {
    "int",    "int64_t", "uint32_t", "size_t",   "bool",
    "double", "uint8_t", "int32_t",  "uint64_t",
};

// In include order, so that a file's pick of them is sorted.
constexpr const char* kIncludes[] = {
    "<algorithm>",
    "<cstdint>",
    "<map>",
    "<memory>",
    "<mutex>",
    "<string>",
    "<utility>",
    "<vector>",
    "\"absl/container/flat_hash_map.h\"",
    "\"absl/status/status.h\"",
    "\"absl/strings/str_cat.h\"",
    "\"absl/synchronization/mutex.h\"",
    "\"absl/types/span.h\"",
};

std::string Capitalized(const std::string& word) {
  std::string out = word;
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') {
    out[0] = static_cast<char>(out[0] - 'a' + 'A');
  }
  return out;
}

// Writes one translation unit after another, each a license header,
// includes and a namespace of classes, constants and functions with nested
// control flow, in Google style.
class SourceWriter {
 public:
  SourceWriter(Rng& rng, std::string* out) : rng_(rng), out_(*out) {}

  void File() {
    Line("// Copyright 2024 The Example Authors.");
    Line("//");
    Line(
        "// Licensed under the Apache License, Version 2.0 (the \"License\");");
    Line("// you may not use this file except in compliance with the License.");
    Line("");
    Line(Cat({"#include \"example/", Noun(), "_", Noun(), ".h\""}));
    Line("");
    for (const char* include : kIncludes) {
      if (rng_.Percent(35)) Line(Cat({"#include ", include}));
    }
    Line("");
    Line("namespace example {");
    Line("");
    for (uint64_t n = 3 + rng_.Below(8); n > 0; --n) {
      const uint64_t what = rng_.Below(10);
      if (what < 2) {
        Class();
      } else if (what < 3) {
        Constants();
      } else {
        Function();
      }
      Line("");
    }
    Line("}  // namespace example");
    Line("");
  }

 private:
  std::string Noun() { return rng_.PickLeaning(kNouns); }
  std::string Verb() { return rng_.PickLeaning(kVerbs); }
  std::string Maybe(int percent, std::string (SourceWriter::*part)()) {
    return rng_.Percent(percent) ? (this->*part)() : "";
  }
  std::string CapitalNoun() { return Capitalized(Noun()); }
  std::string TypeName() {
    return Cat({CapitalNoun(), Maybe(60, &SourceWriter::CapitalNoun)});
  }
  std::string FunctionName() {
    return Cat({Verb(), CapitalNoun(), Maybe(30, &SourceWriter::CapitalNoun)});
  }
  std::string Variable() {
    return rng_.Percent(40) ? Cat({Noun(), "_", Noun()}) : Noun();
  }
  std::string Member() { return Cat({Variable(), "_"}); }
  std::string Constant() { return Cat({"k", CapitalNoun(), "Max"}); }
  std::string Type() {
    const uint64_t what = rng_.Below(10);
    if (what < 5) return rng_.Pick(kScalarTypes);
    if (what < 6) return "std::string";
    if (what < 7) return Cat({"std::vector<", TypeName(), ">"});
    if (what < 8) return Cat({"std::unique_ptr<", TypeName(), ">"});
    if (what < 9) return "absl::Status";
    return TypeName();
  }
  std::string Parameter() {
    const uint64_t what = rng_.Below(3);
    if (what == 0) return Cat({rng_.Pick(kScalarTypes), " ", Variable()});
    if (what == 1) return Cat({"const ", TypeName(), "& ", Variable()});
    return Cat({TypeName(), "* ", Variable()});
  }
  std::string Parameters() {
    std::string out;
    for (uint64_t n = rng_.Below(4); n > 0; --n) {
      if (!out.empty()) out += ", ";
      out += Parameter();
    }
    return out;
  }
  std::string Sentence() {
    switch (rng_.Below(5)) {
      case 0:
        return Cat({"Returns the ", Noun(), " of the ", Noun(), "."});
      case 1:
        return Cat({Verb(), "s the ", Noun(), " unless the ", Noun(),
                    " is already ", rng_.Percent(50) ? "closed." : "full."});
      case 2:
        return Cat({"The ", Noun(), " must outlive the ", Noun(),
                    ", which only borrows it."});
      case 3:
        return Cat({"Called with the ", Noun(), " lock held; ", Verb(),
                    " takes it again otherwise."});
      default:
        return Cat({"TODO(", rng_.Pick(kHandles), "): ", Verb(), " the ",
                    Noun(), " in one pass instead of two."});
    }
  }
  std::string Expression() {
    switch (rng_.Below(8)) {
      case 0:
        return Variable();
      case 1:
        return Member();
      case 2:
        return std::to_string(rng_.Skewed(1024));
      case 3:
        return Cat({Variable(), ".size()"});
      case 4:
        return Cat({FunctionName(), "(", Variable(), ")"});
      case 5:
        return Cat({Variable(), " + ", std::to_string(1 + rng_.Skewed(64))});
      case 6:
        return Cat({"std::min(", Variable(), ", ", Constant(), ")"});
      default:
        return Cat({Member(), "->", FunctionName(), "()"});
    }
  }
  std::string Condition() {
    switch (rng_.Below(6)) {
      case 0:
        return Cat({Variable(), " == nullptr"});
      case 1:
        return Cat({Member(), ".empty()"});
      case 2:
        return Cat({Variable(), " > ", Constant()});
      case 3:
        return Cat({"!", FunctionName(), "(", Variable(), ")"});
      case 4:
        return "!status.ok()";
      default:
        return Cat({Variable(), " < ", Member()});
    }
  }

  void Line(const std::string& text) {
    if (!text.empty()) out_.append(2 * depth_, ' ');
    out_ += text;
    out_ += '\n';
  }

  void Statement() {
    switch (rng_.Below(depth_ < 3 ? 12 : 8)) {
      case 0:
      case 1:
        Line(
            Cat({"const ", Type(), " ", Variable(), " = ", Expression(), ";"}));
        break;
      case 2:
        Line(Cat({Member(), " = ", Expression(), ";"}));
        break;
      case 3:
        Line(Cat({Member(), " += ", Expression(), ";"}));
        break;
      case 4:
        Line(Cat({Variable(), ".", FunctionName(), "(", Expression(), ");"}));
        break;
      case 5:
        Line("if (!status.ok()) return status;");
        break;
      case 6:
        Line(Cat({"LOG(INFO) << \"", Verb(), " ", Noun(), ": \" << ",
                  Variable(), ";"}));
        break;
      case 7:
        Line(Cat({"// ", Sentence()}));
        break;
      case 8:
      case 9:
        Line(Cat({"if (", Condition(), ") {"}));
        Block();
        if (rng_.Percent(30)) {
          Line("} else {");
          Block();
        }
        Line("}");
        break;
      case 10:
        Line(Cat({"for (size_t i = 0; i < ", Variable(), ".size(); ++i) {"}));
        Block();
        Line("}");
        break;
      default:
        Line(Cat({"for (const auto& ", Noun(), " : ", Member(), ") {"}));
        Block();
        Line("}");
        break;
    }
  }

  void Block() {
    ++depth_;
    for (uint64_t n = 1 + rng_.Below(4); n > 0; --n) Statement();
    --depth_;
  }

  void Function() {
    Line(Cat({"// ", Sentence()}));
    const std::string type = Type();
    const bool method = rng_.Percent(70);
    const std::string owner = method ? Cat({TypeName(), "::"}) : "";
    const bool is_const = method && rng_.Percent(50);
    Line(Cat({type, " ", owner, FunctionName(), "(", Parameters(), ")",
              is_const ? " const {" : " {"}));
    ++depth_;
    for (uint64_t n = 1 + rng_.Below(6); n > 0; --n) Statement();
    Line(Cat({"return ", Expression(), ";"}));
    --depth_;
    Line("}");
  }

  void Class() {
    const std::string name = TypeName();
    Line(Cat({"// ", Sentence()}));
    Line(Cat({"class ", name, " {"}));
    Line(" public:");
    ++depth_;
    Line(Cat({"explicit ", name, "(", Parameter(), ");"}));
    Line(Cat({"~", name, "();"}));
    Line("");
    for (uint64_t n = 1 + rng_.Below(5); n > 0; --n) {
      Line(Cat({Type(), " ", FunctionName(), "(", Parameters(), ")",
                rng_.Percent(40) ? " const;" : ";"}));
    }
    --depth_;
    Line("");
    Line(" private:");
    ++depth_;
    for (uint64_t n = 1 + rng_.Below(5); n > 0; --n) {
      Line(Cat({Type(), " ", Member(), ";"}));
    }
    --depth_;
    Line("};");
  }

  void Constants() {
    for (uint64_t n = 1 + rng_.Below(4); n > 0; --n) {
      Line(Cat({"constexpr ", rng_.Pick(kScalarTypes), " ", Constant(), " = ",
                std::to_string(rng_.Skewed(65536)), ";"}));
    }
  }

  Rng& rng_;
  std::string& out_;
  int depth_ = 0;
};

std::string MakeSource(size_t size, Rng& rng) {
  std::string out;
  out.reserve(size + 4096);
  SourceWriter writer(rng, &out);
  while (out.size() < size) writer.File();
  out.resize(size);
  return out;
}

// --- kRandom ---------------------------------------------------------------

std::string MakeRandom(size_t size, Rng& rng) {
  std::string out(size, '\0');
  uint64_t bits = 0;
  for (size_t i = 0; i < size; ++i) {
    if (i % 8 == 0) bits = rng.Next();
    out[i] = static_cast<char>(bits & 0xFF);  // low byte first, on any host
    bits >>= 8;
  }
  return out;
}

}  // namespace

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kWords:
      return "words";
    case Kind::kProse:
      return "text";
    case Kind::kRecords:
      return "proto";
    case Kind::kJson:
      return "json";
    case Kind::kSource:
      return "source";
    case Kind::kRandom:
      return "random";
  }
  return "?";
}

std::optional<Kind> ParseKind(std::string_view name) {
  for (Kind kind : AllKinds()) {
    if (name == KindName(kind)) return kind;
  }
  if (name == "prose") return Kind::kProse;
  if (name == "records") return Kind::kRecords;
  return std::nullopt;
}

const std::vector<Kind>& AllKinds() {
  static const auto* kinds =
      new std::vector<Kind>{Kind::kWords, Kind::kProse,  Kind::kRecords,
                            Kind::kJson,  Kind::kSource, Kind::kRandom};
  return *kinds;
}

std::string Make(Kind kind, size_t size, uint32_t seed) {
  Rng rng = RngFor(kind, seed);
  switch (kind) {
    case Kind::kWords:
      return MakeWords(size, seed);
    case Kind::kProse:
      return MakeProse(size, rng);
    case Kind::kRecords:
      return MakeRecords(size, rng);
    case Kind::kJson:
      return MakeJson(size, rng);
    case Kind::kSource:
      return MakeSource(size, rng);
    case Kind::kRandom:
      return MakeRandom(size, rng);
  }
  return std::string(size, '\0');
}

const std::vector<size_t>& AllSizes() {
  static const auto* sizes =
      new std::vector<size_t>{1, 1 << 10, 8 << 10, 64 << 10, 1 << 20};
  return *sizes;
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

}  // namespace pooled_gzip::payloads
