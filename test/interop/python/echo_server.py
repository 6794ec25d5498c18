"""Echo server on Python grpcio for the interop suite.

The semantics of examples/echo_server.cc, with responses compressed as each
request's response_encoding asks (ServicerContext.set_compression).

  /usr/bin/python3 echo_server.py --gen_dir=DIR --port=0
prints "listening on 127.0.0.1:PORT".
"""

from concurrent import futures
import signal
import threading

import grpc

import peer_common


def main():
    parser = peer_common.flag_parser(__doc__)
    parser.add_argument("--port", type=int, default=0)
    flags = parser.parse_args()
    echo_pb2, echo_pb2_grpc = peer_common.import_echo(flags.gen_dir)

    def apply_encoding(request, context):
        if request.response_encoding:
            context.set_compression(
                peer_common.ALGORITHMS[request.response_encoding])

    class Echo(echo_pb2_grpc.EchoServicer):
        def Unary(self, request, context):
            apply_encoding(request, context)
            return echo_pb2.EchoResponse(payload=request.payload)

        def ServerStream(self, request, context):
            apply_encoding(request, context)
            for _ in range(max(request.response_count, 1)):
                yield echo_pb2.EchoResponse(payload=request.payload)

        def ClientStream(self, request_iterator, context):
            last = b""
            messages = 0
            size = 0
            for request in request_iterator:
                if messages == 0:
                    apply_encoding(request, context)
                messages += 1
                size += len(request.payload)
                last = request.payload
            return echo_pb2.EchoResponse(payload=last,
                                         received_messages=messages,
                                         received_bytes=size)

        def Bidi(self, request_iterator, context):
            first = True
            for request in request_iterator:
                if first:
                    apply_encoding(request, context)
                    first = False
                yield echo_pb2.EchoResponse(payload=request.payload)

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4),
                         options=peer_common.MESSAGE_LIMITS)
    echo_pb2_grpc.add_EchoServicer_to_server(Echo(), server)
    port = server.add_insecure_port("127.0.0.1:%d" % flags.port)
    server.start()
    print("listening on 127.0.0.1:%d (grpcio %s)" % (port, grpc.__version__),
          flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=None)


if __name__ == "__main__":
    main()
