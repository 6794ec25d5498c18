#include "h2load_summary.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace pooled_gzip::bench {
namespace {

// The line of `output` that starts with `label`, whole; empty if none.
absl::string_view FindLine(absl::string_view output, absl::string_view label) {
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::StartsWith(line, label)) return line;
  }
  return {};
}

// Each comma-separated item's count by the word after it: "20849 total"
// and "1.63MB (1708844) total" both give {"total", 20849...}. The count is
// the first word that is a number, bare or in parentheses (h2load writes
// byte counts twice, rounded with a unit and exact in parentheses).
std::map<std::string, uint64_t> Counts(absl::string_view rest) {
  std::map<std::string, uint64_t> counts;
  for (absl::string_view item : absl::StrSplit(rest, ',')) {
    std::vector<absl::string_view> words =
        absl::StrSplit(item, ' ', absl::SkipEmpty());
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      absl::string_view word = words[i];
      if (absl::ConsumePrefix(&word, "(")) absl::ConsumeSuffix(&word, ")");
      uint64_t value;
      if (!word.empty() && absl::ascii_isdigit(word[0]) &&
          absl::SimpleAtoi(word, &value)) {
        counts.emplace(std::string(words[i + 1]), value);
        break;
      }
    }
  }
  return counts;
}

}  // namespace

absl::StatusOr<H2loadSummary> ParseH2loadSummary(absl::string_view output) {
  struct Field {
    const char* label;
    const char* name;
    uint64_t H2loadSummary::*member;
  };
  static constexpr Field kFields[] = {
      {"requests: ", "total", &H2loadSummary::total},
      {"requests: ", "done", &H2loadSummary::done},
      {"requests: ", "succeeded", &H2loadSummary::succeeded},
      {"requests: ", "failed", &H2loadSummary::failed},
      {"requests: ", "errored", &H2loadSummary::errored},
      {"requests: ", "timeout", &H2loadSummary::timeout},
      {"status codes: ", "2xx", &H2loadSummary::status_2xx},
      {"status codes: ", "3xx", &H2loadSummary::status_3xx},
      {"status codes: ", "4xx", &H2loadSummary::status_4xx},
      {"status codes: ", "5xx", &H2loadSummary::status_5xx},
      {"traffic: ", "total", &H2loadSummary::traffic_total},
      {"traffic: ", "data", &H2loadSummary::traffic_data},
  };
  H2loadSummary summary;
  std::vector<absl::string_view> lines;
  std::map<absl::string_view, std::map<std::string, uint64_t>> by_label;
  for (absl::string_view label :
       {"requests: ", "status codes: ", "traffic: "}) {
    const absl::string_view line = FindLine(output, label);
    if (line.empty()) continue;
    lines.push_back(line);
    by_label[label] = Counts(line.substr(label.size()));
  }
  std::vector<std::string> missing;
  for (const Field& field : kFields) {
    const std::map<std::string, uint64_t>& counts = by_label[field.label];
    const auto count = counts.find(field.name);
    if (count == counts.end()) {
      missing.push_back(
          absl::StrCat("\"", field.label, "... ", field.name, "\""));
      continue;
    }
    summary.*field.member = count->second;
  }
  summary.lines = absl::StrJoin(lines, "\n");
  if (!missing.empty()) {
    constexpr size_t kTail = 800;
    return absl::InvalidArgumentError(absl::StrCat(
        "h2load printed no ", absl::StrJoin(missing, ", "), "; it printed:\n",
        output.size() <= kTail ? output
                               : output.substr(output.size() - kTail)));
  }
  return summary;
}

absl::Status CheckHttpOutcome(const H2loadSummary& summary) {
  std::vector<std::string> wrong;
  for (const auto& [count, what] :
       {std::pair{summary.failed, "failed"},
        {summary.errored, "errored"},
        {summary.timeout, "timed out"},
        {summary.status_3xx, "were answered 3xx"},
        {summary.status_4xx, "were answered 4xx"},
        {summary.status_5xx, "were answered 5xx"}}) {
    if (count > 0) wrong.push_back(absl::StrCat(count, " ", what));
  }
  // A timed run counts only what finished in its window: a window shorter
  // than one call under load has nothing to count.
  if (summary.succeeded == 0) {
    wrong.push_back("none succeeded within its measured window");
  }
  if (wrong.empty()) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("of h2load's requests, ", absl::StrJoin(wrong, ", ")));
}

}  // namespace pooled_gzip::bench
