"""What the suite's Python grpcio programs share: flags, payloads, codegen."""

import argparse
import os
import sys

import grpc

# Every message may be as large as the suite sends (1 MiB payloads).
MESSAGE_LIMITS = [
    ("grpc.max_receive_message_length", 64 << 20),
    ("grpc.max_send_message_length", 64 << 20),
]

ALGORITHMS = {
    "none": grpc.Compression.NoCompression,
    "identity": grpc.Compression.NoCompression,
    "deflate": grpc.Compression.Deflate,
    "gzip": grpc.Compression.Gzip,
}

_WORDS = ["alpha", "bravo", "charlie", "delta", "echo",
          "foxtrot", "golf", "hotel", "india", "juliet"]


def peer_payload(size, seed):
    """The suite's deterministic payload; see harness/peer_payload.cc."""
    parts = []
    length = 0
    k = 0
    while length < size:
        word = _WORDS[(k * 7 + seed * 3) % len(_WORDS)]
        parts.append(word + ("\n" if k % 8 == 7 else " "))
        length += len(word) + 1
        k += 1
    return "".join(parts)[:size].encode("latin-1")


def import_echo(gen_dir):
    """Imports echo_pb2 and echo_pb2_grpc, generated at build time."""
    sys.path.insert(0, os.path.abspath(gen_dir))
    import echo_pb2  # pylint: disable=import-outside-toplevel
    import echo_pb2_grpc  # pylint: disable=import-outside-toplevel
    return echo_pb2, echo_pb2_grpc


def flag_parser(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--gen_dir", required=True,
                        help="directory holding echo_pb2.py and echo_pb2_grpc.py")
    return parser
