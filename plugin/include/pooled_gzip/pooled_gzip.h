// pooled-gzip: gzip and deflate message compression for gRPC C++ from
// recycled zlib contexts.
//
// gRPC core compresses each message with a brand-new zlib stream, allocating
// and freeing about 256 KiB of state per message. With the plugin installed,
// messages of calls whose algorithm is gzip or deflate are compressed before
// they reach core, from a thread-local pool of zlib writers, and handed over
// marked as already compressed. The wire format is standard: grpc-encoding
// gzip (or deflate) and the per-message compressed flag, which every gRPC
// implementation reads.
//
//   Server:  grpc::ServerBuilder builder;
//            builder.SetDefaultCompressionAlgorithm(GRPC_COMPRESS_GZIP);
//            pooled_gzip::EnableOnServer(builder);
//   Client:  grpc::ChannelArguments args;
//            args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
//            auto channel = pooled_gzip::CreateChannel(target, creds, args);
//
// Which calls compress is decided exactly as without the plugin: the channel
// or server default algorithm, or set_compression_algorithm on the call's
// ClientContext or ServerContext. The plugin steps aside, leaving the message
// to core, whenever it cannot be certain of the call's algorithm:
//  - on the server, when a compression *level* is set (per call, or the
//    server default), because core then picks the algorithm per call from the
//    client's grpc-accept-encoding, which applications cannot see;
//  - when the algorithm is disabled on the channel or server, or
//    per-message compression is turned off ("grpc.per_message_compression");
//  - on in-process channels, which have no compression at all;
//  - for algorithms other than gzip and deflate.
// Received messages are still inflated by core (no public hook sees them
// before parsing); see raw_mode.h for pooled reading.
//
// WriteOptions::set_no_compression() is invisible to interceptors, so under
// the plugin it has no effect on calls whose algorithm is gzip or deflate:
// such messages are sent compressed. To send a message uncompressed, make
// the call's algorithm GRPC_COMPRESS_NONE.
//
// Every message of a gzip or deflate call is sent compressed, even when that
// makes it larger (a 1-byte message becomes about 21 bytes); core would send
// such a message uncompressed, but only after paying for a deflate of its own.

#ifndef POOLED_GZIP_POOLED_GZIP_H_
#define POOLED_GZIP_POOLED_GZIP_H_

#include <grpcpp/channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/channel_arguments.h>
#include <grpcpp/support/client_interceptor.h>
#include <grpcpp/support/server_interceptor.h>

#include <memory>
#include <string>
#include <vector>

#include "pooled_gzip/channel_args.h"
#include "pooled_gzip/codec.h"
#include "pooled_gzip/pool_stats.h"
#include "pooled_gzip/raw_mode.h"

namespace pooled_gzip {

using ClientInterceptorFactories = std::vector<
    std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>;
using ServerInterceptorFactories = std::vector<
    std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>;

// Like grpc::CreateCustomChannel, with outgoing messages of gzip and deflate
// calls compressed from the pool. `interceptor_creators` run first, in order;
// the compressor is the last to see each outgoing message.
std::shared_ptr<grpc::Channel> CreateChannel(
    const std::string& target,
    const std::shared_ptr<grpc::ChannelCredentials>& creds,
    const grpc::ChannelArguments& args,
    ClientInterceptorFactories interceptor_creators = {});

// Installs the compressor on `builder` for the responses of gzip and deflate
// calls. ServerBuilder::experimental().SetInterceptorCreators() replaces the
// builder's list, so pass your own server interceptors here instead: they
// run first, in order, and the compressor last. Call once per builder,
// before BuildAndStart.
void EnableOnServer(grpc::ServerBuilder& builder,
                    ServerInterceptorFactories interceptor_creators = {});

}  // namespace pooled_gzip

#endif  // POOLED_GZIP_POOLED_GZIP_H_
