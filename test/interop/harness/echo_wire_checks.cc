#include "echo_wire_checks.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "echo.pb.h"

namespace pooled_gzip::interop {
namespace {

constexpr char kEchoPrefix[] = "/pooled_gzip.echo.Echo/";

std::string RpcOfPath(const std::string& path) {
  const std::string prefix = kEchoPrefix;
  if (path.rfind(prefix, 0) != 0) return "";
  const std::string method = path.substr(prefix.size());
  if (method == "Unary") return "unary";
  if (method == "ServerStream") return "server_stream";
  if (method == "ClientStream") return "client_stream";
  if (method == "Bidi") return "bidi";
  return "";
}

bool IsPlainEncoding(const std::string& encoding) {
  return encoding.empty() || encoding == "identity";
}

// The streams of one RPC kind and payload size, in the order they ran.
struct Cell {
  std::vector<const StreamRecord*> streams;
};

class CellChecker {
 public:
  CellChecker(const EchoExpectation& expectation, std::string rpc, size_t size,
              EchoWireReport* report)
      : expectation_(expectation),
        rpc_(std::move(rpc)),
        size_(size),
        report_(report) {}

  void Check(const Cell& cell) {
    const size_t want_streams =
        rpc_ == "unary" ? static_cast<size_t>(expectation_.count) : 1;
    if (cell.streams.size() != want_streams) {
      Fail(absl::StrCat(cell.streams.size(), " calls, want ", want_streams));
    }
    int seed = 0;
    for (const StreamRecord* stream : cell.streams) CheckStream(*stream, &seed);
    report_->observations.push_back(absl::StrCat(
        rpc_, " ", size_, " B: requests ", Observed(kClientToServer),
        "; responses ", Observed(kServerToClient)));
  }

 private:
  void CheckStream(const StreamRecord& stream, int* seed) {
    if (stream.grpc_status() != 0) {
      Fail(
          absl::StrCat("stream ", stream.id, " ended with grpc-status ",
                       stream.server().Header("grpc-status").value_or("none")));
    }
    CheckSending(stream, kClientToServer, expectation_.requests);
    CheckSending(stream, kServerToClient, expectation_.responses);

    std::vector<echo::EchoRequest> requests;
    for (const WireMessage& message : stream.client().messages) {
      echo::EchoRequest& request = requests.emplace_back();
      if (message.ok() && !request.ParseFromString(message.bytes)) {
        Fail(absl::StrCat("stream ", stream.id, ": a request does not parse"));
      }
      const int this_seed = (*seed)++;
      if (message.ok() &&
          request.payload() != expectation_.payload(size_, this_seed)) {
        Fail(absl::StrCat("stream ", stream.id, ": request ", this_seed,
                          " does not hold the payload sent"));
      }
    }
    std::vector<echo::EchoResponse> responses;
    for (const WireMessage& message : stream.server().messages) {
      if (message.ok() &&
          !responses.emplace_back().ParseFromString(message.bytes)) {
        Fail(absl::StrCat("stream ", stream.id, ": a response does not parse"));
      }
    }
    CheckEcho(stream, requests, responses);
  }

  void CheckEcho(const StreamRecord& stream,
                 const std::vector<echo::EchoRequest>& requests,
                 const std::vector<echo::EchoResponse>& responses) {
    const size_t count = expectation_.count;
    const std::string at = absl::StrCat("stream ", stream.id, ": ");
    size_t want_requests = 1;
    size_t want_responses = 1;
    if (rpc_ == "server_stream") want_responses = count;
    if (rpc_ == "client_stream") want_requests = count;
    if (rpc_ == "bidi") want_requests = want_responses = count;
    if (requests.size() != want_requests ||
        responses.size() != want_responses) {
      Fail(absl::StrCat(at, requests.size(), " requests and ", responses.size(),
                        " responses, want ", want_requests, " and ",
                        want_responses));
      return;
    }
    for (size_t i = 0; i < responses.size(); ++i) {
      // Each response echoes its request; server streaming repeats the one
      // request, client streaming answers with the last.
      const echo::EchoRequest& source =
          rpc_ == "bidi" ? requests[i] : requests.back();
      if (responses[i].payload() != source.payload()) {
        Fail(absl::StrCat(at, "response ", i, " does not echo its request"));
      }
    }
    if (rpc_ == "client_stream" &&
        (responses[0].received_messages() != count ||
         responses[0].received_bytes() != count * size_)) {
      Fail(at + "client-stream summary is wrong");
    }
  }

  void CheckSending(const StreamRecord& stream, Direction direction,
                    Sending sending) {
    const HalfStream& half = stream.half[direction];
    const std::string encoding = stream.encoding(direction);
    const std::string at =
        absl::StrCat("stream ", stream.id, " ", DirectionName(direction), ": ");
    Tally& tally = tallies_[direction];
    tally.encoding = encoding.empty() ? "no grpc-encoding" : encoding;
    for (size_t i = 0; i < half.messages.size(); ++i) {
      const WireMessage& message = half.messages[i];
      ++tally.messages;
      if (message.compressed_flag) ++tally.flagged;
      if (!message.ok()) {
        Fail(absl::StrCat(at, "message ", i, ": ", message.error));
        continue;
      }
      bool want_flag = message.compressed_flag;
      switch (sending) {
        case Sending::kNothing:
          want_flag = false;
          break;
        case Sending::kEveryMessage:
          want_flag = true;
          break;
        case Sending::kCoreRule:
          // Core sends the smaller of the two forms; on this payload that is
          // the plain one at 1 byte and the compressed one from 1 KiB up.
          if (size_ == 1) want_flag = false;
          if (size_ >= 1024) want_flag = true;
          break;
        case Sending::kFirstMessageOfEachCall:
          if (i == 0) want_flag = true;
          break;
      }
      if (message.compressed_flag != want_flag) {
        Fail(absl::StrCat(
            at, "message ", i, " is ", message.compressed_flag ? "" : "not ",
            "flagged compressed, want ", want_flag ? "flagged" : "plain", " (",
            SendingName(sending), ")"));
      }
    }
    if (half.incomplete_bytes != 0) {
      Fail(absl::StrCat(at, half.incomplete_bytes,
                        " bytes of an incomplete message"));
    }
    if (sending == Sending::kNothing ? !IsPlainEncoding(encoding)
                                     : encoding != expectation_.algorithm) {
      Fail(absl::StrCat(at, "grpc-encoding '", encoding, "', want ",
                        sending == Sending::kNothing ? "none or identity"
                                                     : expectation_.algorithm));
    }
  }

  std::string Observed(Direction direction) const {
    const Tally& tally = tallies_[direction];
    return absl::StrCat(tally.encoding, ", ", tally.flagged, "/",
                        tally.messages, " flagged");
  }

  void Fail(const std::string& what) {
    report_->failures.push_back(absl::StrCat(rpc_, " ", size_, " B: ", what));
  }

  struct Tally {
    std::string encoding;
    int messages = 0;
    int flagged = 0;
  };

  const EchoExpectation& expectation_;
  const std::string rpc_;
  const size_t size_;
  EchoWireReport* report_;
  Tally tallies_[2];
};

// The payload size of a stream's first request, or -1.
long long FirstRequestSize(const StreamRecord& stream) {
  for (const WireMessage& message : stream.client().messages) {
    echo::EchoRequest request;
    if (message.ok() && request.ParseFromString(message.bytes)) {
      return static_cast<long long>(request.payload().size());
    }
    return -1;
  }
  return -1;
}

}  // namespace

const char* SendingName(Sending sending) {
  switch (sending) {
    case Sending::kNothing:
      return "nothing compressed";
    case Sending::kEveryMessage:
      return "every message compressed";
    case Sending::kCoreRule:
      return "gRPC core's rule";
    case Sending::kFirstMessageOfEachCall:
      return "first message of each call compressed";
  }
  return "?";
}

EchoWireReport CheckEchoWire(const std::vector<StreamRecord>& streams,
                             const EchoExpectation& expectation) {
  EchoWireReport report;
  std::map<std::pair<std::string, long long>, Cell> cells;
  for (const StreamRecord& stream : streams) {
    const std::string rpc = RpcOfPath(stream.path());
    if (rpc.empty()) {
      report.failures.push_back(absl::StrCat("unexpected stream ", stream.id,
                                             " '", stream.path(), "'"));
      continue;
    }
    cells[{rpc, FirstRequestSize(stream)}].streams.push_back(&stream);
  }
  if (!streams.empty()) {
    // What each side said it accepts, which decides what peers send back.
    const StreamRecord& first = streams.front();
    report.observations.push_back(absl::StrCat(
        "grpc-accept-encoding: client '",
        first.client().Header("grpc-accept-encoding").value_or("(none)"),
        "', server '",
        first.server().Header("grpc-accept-encoding").value_or("(none)"), "'"));
  }
  for (const std::string& rpc : expectation.rpcs) {
    for (size_t size : expectation.sizes) {
      auto found = cells.find({rpc, static_cast<long long>(size)});
      if (found == cells.end()) {
        report.failures.push_back(
            absl::StrCat(rpc, " ", size, " B: no such call on the wire"));
        continue;
      }
      CellChecker(expectation, rpc, size, &report).Check(found->second);
      cells.erase(found);
    }
  }
  for (const auto& [key, cell] : cells) {
    report.failures.push_back(absl::StrCat(cell.streams.size(), " unexpected ",
                                           key.first, " calls with ",
                                           key.second, "-byte payloads"));
  }
  return report;
}

}  // namespace pooled_gzip::interop
