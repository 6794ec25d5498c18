#!/usr/bin/env python3
"""Writes the committed seed corpora of the fuzz targets (fuzz/corpus/*).

Seeds are made with Python's zlib, independent of the code under test, and
cover what the decoder must get right: both formats, every block type,
gzip header options, limits at, under and over the output size, input split
into pieces, capped output chunks, both paths (codec and raw mode), and the
hostile cases (truncated, corrupt, trailing bytes, wrong format, preset
dictionary, a small bomb). Rerun after changing the input layout:

    python3 fuzz/make_seeds.py
"""

import os
import random
import shutil
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
GZIP, ZLIB = 0, 1
CODEC, RAW = 0, 2


def text(size, seed=1):
    words = b"the quick brown fox jumps over a lazy dog message grpc".split()
    rng = random.Random(seed)
    out = bytearray()
    while len(out) < size:
        out += rng.choice(words) + (b"\n" if rng.random() < 0.1 else b" ")
    return bytes(out[:size])


def noise(size, seed=2):
    return random.Random(seed).randbytes(size)


def compress(data, fmt, level=6, strategy=zlib.Z_DEFAULT_STRATEGY, zdict=None):
    wbits = 31 if fmt == GZIP else 15
    args = dict(level=level, wbits=wbits, strategy=strategy)
    if zdict is not None:
        args["zdict"] = zdict
    c = zlib.compressobj(**args)
    return c.compress(data) + c.flush()


def gzip_with_header_fields(data):
    """gzip with FEXTRA, FNAME, FCOMMENT and FHCRC, as tools may write."""
    flags = 0x04 | 0x08 | 0x10 | 0x02
    head = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", 0) + b"\x00\x03"
    head += struct.pack("<H", 4) + b"ab\x00\x01"
    head += b"payload.txt\x00" + b"a comment\x00"
    head += struct.pack("<H", zlib.crc32(head) & 0xFFFF)
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    return head + body + struct.pack("<II", zlib.crc32(data), len(data))


ZLIB_BACKEND, LIBDEFLATE, ISAL = 0, 1, 2
BACKENDS = ((LIBDEFLATE, "libdeflate"), (ISAL, "isal"))
MAX_LEVEL = {ZLIB_BACKEND: 9, LIBDEFLATE: 12, ISAL: 3}


def decode_header(fmt, path, limit, piece=0, chunk=0, backend=ZLIB_BACKEND):
    return bytes([fmt | path | (backend << 2)]) + limit.to_bytes(3, "big") + \
        bytes([piece, chunk])


def roundtrip_header(fmt, level, path, piece=0, chunk=0,
                     backend=ZLIB_BACKEND):
    return bytes([fmt | ((level + 1) << 1) | (0x20 if path == RAW else 0) |
                  (backend << 6), piece, chunk])


def with_backend(seed, backend, shift):
    """The same seed decoded (or encoded) by another backend."""
    return bytes([seed[0] | (backend << shift)]) + seed[1:]


def decode_seeds():
    seeds = {}
    msg = text(3000)
    for fmt, name in ((GZIP, "gzip"), (ZLIB, "zlib")):
        other = ZLIB if fmt == GZIP else GZIP
        good = compress(msg, fmt)
        n = len(msg)
        for path, pname in ((CODEC, "codec"), (RAW, "raw")):
            p = f"{name}_{pname}"
            seeds[f"{p}_text"] = decode_header(fmt, path, 1 << 20) + good
            seeds[f"{p}_limit_exact"] = decode_header(fmt, path, n) + good
            seeds[f"{p}_limit_short"] = decode_header(fmt, path, n - 1) + good
            seeds[f"{p}_pieces"] = decode_header(fmt, path, n, 7) + good
            seeds[f"{p}_empty_msg"] = decode_header(fmt, path, 0) + compress(
                b"", fmt)
        h = lambda limit=1 << 20, piece=0, chunk=0: decode_header(
            fmt, CODEC, limit, piece, chunk)
        seeds[f"{name}_chunks_1"] = h(n, 0, 1) + good
        seeds[f"{name}_chunks_100"] = h(n, 13, 100) + good
        seeds[f"{name}_chunks_2k"] = h(n, 0, 129) + good
        seeds[f"{name}_stored"] = h() + compress(noise(2000), fmt, level=0)
        seeds[f"{name}_noise"] = h() + compress(noise(2000), fmt)
        seeds[f"{name}_fixed"] = h() + compress(msg, fmt, strategy=zlib.Z_FIXED)
        seeds[f"{name}_huffman"] = h() + compress(
            msg, fmt, strategy=zlib.Z_HUFFMAN_ONLY)
        seeds[f"{name}_rle"] = h() + compress(msg, fmt, 9, zlib.Z_RLE)
        seeds[f"{name}_level1"] = h() + compress(msg, fmt, 1)
        seeds[f"{name}_level9"] = h() + compress(msg, fmt, 9)
        seeds[f"{name}_truncated"] = h() + good[:-5]
        seeds[f"{name}_trailing"] = h() + good + b"x"
        seeds[f"{name}_two_streams"] = h() + good + good
        corrupt = bytearray(good)
        corrupt[len(corrupt) // 2] ^= 0x55
        seeds[f"{name}_corrupt"] = h() + bytes(corrupt)
        seeds[f"{name}_wrong_format"] = h() + compress(msg, other)
        seeds[f"{name}_bomb"] = h(64 * 1024, 0, 130) + compress(
            bytes(4 << 20), fmt, 9)
        seeds[f"{name}_empty_input"] = h()
    seeds["gzip_header_fields"] = decode_header(GZIP, CODEC, 1 << 20) + \
        gzip_with_header_fields(msg)
    seeds["zlib_dictionary"] = decode_header(ZLIB, CODEC, 1 << 20) + compress(
        msg, ZLIB, zdict=text(200, 9))
    # Every seed again for the other backends' decoders.
    for name, seed in list(seeds.items()):
        for backend, bname in BACKENDS:
            seeds[f"{name}_{bname}"] = with_backend(seed, backend, 2)
    return seeds


def roundtrip_seeds():
    seeds = {}
    payloads = {"empty": b"", "byte": b"x", "text": text(2000),
                "noise": noise(1500), "zeros": bytes(5000)}
    for fmt, name in ((GZIP, "gzip"), (ZLIB, "zlib")):
        for level in (-1, 0, 1, 9):
            for pname, payload in payloads.items():
                seeds[f"{name}_l{level}_{pname}"] = roundtrip_header(
                    fmt, level, CODEC) + payload
        for pname, payload in payloads.items():
            seeds[f"{name}_raw_{pname}"] = roundtrip_header(
                fmt, -1, RAW) + payload
        seeds[f"{name}_pieces_chunks"] = roundtrip_header(
            fmt, 6, CODEC, 5, 3) + payloads["text"]
        for backend, bname in BACKENDS:
            for level in sorted({-1, 0, 1, MAX_LEVEL[backend]}):
                for pname, payload in payloads.items():
                    seeds[f"{name}_{bname}_l{level}_{pname}"] = \
                        roundtrip_header(fmt, level, CODEC,
                                         backend=backend) + payload
            for pname, payload in payloads.items():
                seeds[f"{name}_{bname}_raw_{pname}"] = roundtrip_header(
                    fmt, -1, RAW, backend=backend) + payload
            seeds[f"{name}_{bname}_pieces_chunks"] = roundtrip_header(
                fmt, -1, CODEC, 5, 3, backend) + payloads["text"]
    return seeds


def write(name, seeds):
    folder = os.path.join(HERE, "corpus", name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for seed, data in sorted(seeds.items()):
        with open(os.path.join(folder, seed), "wb") as f:
            f.write(data)
    print(f"{folder}: {len(seeds)} seeds")


if __name__ == "__main__":
    write("decode", decode_seeds())
    write("roundtrip", roundtrip_seeds())
