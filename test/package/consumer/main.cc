// Uses each layer of the installed package once; exits 0 when all worked.

#include <pooled_gzip/pooled_gzip.h>

#include <iostream>
#include <string>

int main() {
  const std::string message(4096, 'x');
  std::string compressed;
  std::string restored;
  if (!pooled_gzip::CompressToString(message, {}, &compressed).ok() ||
      !pooled_gzip::DecompressToString(compressed, pooled_gzip::Format::kGzip,
                                       message.size(), &restored)
           .ok() ||
      restored != message) {
    std::cerr << "codec round trip failed\n";
    return 1;
  }

  grpc::ServerBuilder builder;
  pooled_gzip::EnableOnServer(builder);
  grpc::ChannelArguments args;
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  auto channel = pooled_gzip::CreateChannel(
      "127.0.0.1:1", grpc::InsecureChannelCredentials(), args);
  if (channel == nullptr) {
    std::cerr << "no channel\n";
    return 1;
  }
  std::cout << "consumer ok: " << message.size() << " -> " << compressed.size()
            << " bytes; pool "
            << pooled_gzip::ToString(pooled_gzip::GetPoolStats()) << "\n";
  return 0;
}
