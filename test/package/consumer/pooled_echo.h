// A gzip echo server and a channel to it, both set up with pooled_gzip's
// calls as the README shows them, on a free loopback port: what the
// consumers of the installed package that link the library share.

#ifndef POOLED_GZIP_TEST_PACKAGE_CONSUMER_POOLED_ECHO_H_
#define POOLED_GZIP_TEST_PACKAGE_CONSUMER_POOLED_ECHO_H_

#include <pooled_gzip/pooled_gzip.h>

#include <memory>
#include <string>

#include "generic_echo.h"

namespace consumer {

class PooledEcho {
 public:
  PooledEcho() {
    server_ =
        StartGzipServer(&service_, &port_, [](grpc::ServerBuilder& builder) {
          pooled_gzip::EnableOnServer(builder);
        });
    grpc::ChannelArguments args;
    args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
    stub_ = std::make_unique<grpc::GenericStub>(
        pooled_gzip::CreateChannel("127.0.0.1:" + std::to_string(port_),
                                   grpc::InsecureChannelCredentials(), args));
  }

  // False if the server did not start; then no call can succeed.
  bool started() const { return server_ != nullptr; }
  grpc::GenericStub* stub() { return stub_.get(); }
  void Shutdown() {
    if (server_ != nullptr) server_->Shutdown();
  }

 private:
  EchoService service_;  // outlives the server, declared before it
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::GenericStub> stub_;
};

}  // namespace consumer

#endif  // POOLED_GZIP_TEST_PACKAGE_CONSUMER_POOLED_ECHO_H_
