// The interop compression cases as a pooled-gzip raw-mode client (see
// compression_cases.h), with the flags of gRPC's interop clients.
//
//   interop_client --server_host=127.0.0.1 --server_port=PORT
//       --test_case=client_compressed_unary
//
// Exit code 0 iff the case passed.

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "compression_cases.h"

ABSL_FLAG(std::string, server_host, "127.0.0.1", "server host");
ABSL_FLAG(int, server_port, 0, "server port");
ABSL_FLAG(std::string, test_case, "", "interop compression case");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string name = absl::GetFlag(FLAGS_test_case);
  const std::string target = absl::GetFlag(FLAGS_server_host) + ":" +
                             std::to_string(absl::GetFlag(FLAGS_server_port));
  absl::Status status = pooled_gzip::interop::RunCompressionCase(
      name, pooled_gzip::interop::MakeRawModeChannel(target));
  if (!status.ok()) {
    std::cout << "FAIL " << name << ": " << status.message() << std::endl;
    return 1;
  }
  std::cout << "ok " << name << std::endl;
  return 0;
}
