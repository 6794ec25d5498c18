"""Echo client on Python grpcio for the interop suite.

Every RPC kind and payload size against one server, each echo checked; exit
code 0 iff all passed.

  /usr/bin/python3 echo_client.py --gen_dir=DIR --target=127.0.0.1:PORT \
      --compression=gzip|deflate|none
"""

import queue
import sys

import grpc

import peer_common

TIMEOUT_S = 60


def main():
    parser = peer_common.flag_parser(__doc__)
    parser.add_argument("--target", required=True)
    parser.add_argument("--compression", default="gzip",
                        choices=["gzip", "deflate", "none"])
    parser.add_argument("--sizes", default="1,1024,1048576")
    parser.add_argument("--count", type=int, default=3)
    flags = parser.parse_args()
    echo_pb2, echo_pb2_grpc = peer_common.import_echo(flags.gen_dir)
    count = flags.count
    encoding = "identity" if flags.compression == "none" else flags.compression

    def request(size, seed):
        return echo_pb2.EchoRequest(payload=peer_common.peer_payload(size, seed),
                                    response_encoding=encoding)

    def unary(stub, size):
        for i in range(count):
            req = request(size, i)
            response = stub.Unary(req, timeout=TIMEOUT_S)
            if response.payload != req.payload:
                raise AssertionError("call %d: echo differs" % i)

    def server_stream(stub, size):
        req = request(size, 0)
        req.response_count = count
        received = 0
        for response in stub.ServerStream(req, timeout=TIMEOUT_S):
            if response.payload != req.payload:
                raise AssertionError("response %d: echo differs" % received)
            received += 1
        if received != count:
            raise AssertionError("got %d responses" % received)

    def client_stream(stub, size):
        requests = [request(size, i) for i in range(count)]
        response = stub.ClientStream(iter(requests), timeout=TIMEOUT_S)
        if (response.payload != requests[-1].payload or
                response.received_messages != count or
                response.received_bytes != count * size):
            raise AssertionError("summary differs")

    def bidi(stub, size):
        # Lock-step: the next request goes out once its predecessor came back.
        outgoing = queue.Queue()

        def requests():
            while True:
                item = outgoing.get()
                if item is None:
                    return
                yield item

        outgoing.put(request(size, 0))
        received = 0
        for response in stub.Bidi(requests(), timeout=TIMEOUT_S):
            if response.payload != peer_common.peer_payload(size, received):
                raise AssertionError("message %d: echo differs" % received)
            received += 1
            outgoing.put(request(size, received) if received < count else None)
        if received != count:
            raise AssertionError("got %d responses" % received)

    channel = grpc.insecure_channel(
        flags.target, options=peer_common.MESSAGE_LIMITS,
        compression=peer_common.ALGORITHMS[flags.compression])
    stub = echo_pb2_grpc.EchoStub(channel)
    failures = 0
    for name, run in [("unary", unary), ("server_stream", server_stream),
                      ("client_stream", client_stream), ("bidi", bidi)]:
        for size in [int(s) for s in flags.sizes.split(",")]:
            try:
                run(stub, size)
                print("ok %s size=%d" % (name, size), flush=True)
            except (grpc.RpcError, AssertionError) as error:
                print("FAIL %s size=%d: %s" % (name, size, error), flush=True)
                failures += 1
    channel.close()
    sys.exit(0 if failures == 0 else 1)


if __name__ == "__main__":
    main()
