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


# The limit codes that stand for no limit (SIZE_MAX) in decode_fuzzer's
# three bytes and decode_diff_fuzzer's one.
NO_LIMIT = 0xffffff
NO_SMALL_LIMIT = 0xff


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
            seeds[f"{p}_no_limit"] = decode_header(fmt, path, NO_LIMIT) + good
            seeds[f"{p}_truncated_no_limit"] = decode_header(
                fmt, path, NO_LIMIT) + good[:-5]
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
        seeds[f"{name}_bomb_no_limit"] = h(NO_LIMIT, 0, 130) + compress(
            bytes(4 << 20), fmt, 9)
        seeds[f"{name}_trailing_no_limit"] = h(NO_LIMIT) + good + b"x"
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


class BitWriter:
    """Deflate's bit order: values least significant bit first, Huffman
    codes most significant bit first."""

    def __init__(self):
        self.bits = []

    def put(self, value, n):
        self.bits += [(value >> i) & 1 for i in range(n)]

    def code(self, code, n):
        self.bits += [(code >> i) & 1 for i in reversed(range(n))]

    def finish(self):
        bits = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(sum(bits[i + j] << j for j in range(8))
                     for i in range(0, len(bits), 8))


def canonical(lengths):
    count = [0] * 16
    for n in lengths:
        count[n] += 1
    count[0] = 0
    code, nxt = 0, [0] * 16
    for bits in range(1, 16):
        code = (code + count[bits - 1]) << 1
        nxt[bits] = code
    codes = []
    for n in lengths:
        codes.append(nxt[n])
        if n:
            nxt[n] += 1
    return codes


def dynamic_header(w, litlen, dist, final=1, extra_zeros=0, no_18=False):
    """Code-length code: 4 bits for 0..14 and for 18 (code 15)."""
    order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    w.put(final, 1)
    w.put(2, 2)
    w.put(len(litlen) - 257, 5)
    w.put(len(dist) - 1, 5)
    w.put(15, 4)
    for sym in order:
        w.put(4 if sym < 15 or (sym == 18 and not no_18) else 0, 3)
    lengths = litlen + dist
    i = 0
    while i < len(lengths):
        run = 0
        while i + run < len(lengths) and lengths[i + run] == 0:
            run += 1
        last = i + run == len(lengths)
        zeros = run + (extra_zeros if last else 0)
        if zeros >= 11 and not no_18:
            n = min(zeros, 138)
            w.code(15, 4)
            w.put(n - 11, 7)
            if last and n >= run:
                break
            i += min(n, run)
            continue
        w.code(lengths[i], 4)
        i += 1


def sparse(count, pairs):
    lengths = [0] * count
    for sym, n in pairs:
        lengths[sym] = n
    return lengths


def complete(count, a):
    n = (1 << (a + 1)) - count
    return [a] * n + [a + 1] * (count - n)


def strict_bodies():
    """Deflate bodies zlib refuses that libdeflate or ISA-L takes (the cases
    of zlib_rules_test's StrictDecodeTest), by the library that takes each."""
    bodies = {}
    for sym in (286, 287):
        w = BitWriter()
        w.put(1, 1); w.put(1, 2)
        w.code(0x30 + ord("a"), 8); w.code(0xC0 + sym - 280, 8)
        w.code(0, 5); w.code(0, 7)
        bodies[f"fixed_litlen_{sym}"] = (LIBDEFLATE, w.finish())
    for sym in (30, 31):
        w = BitWriter()
        w.put(1, 1); w.put(1, 2)
        w.code(0x30 + ord("a"), 8)
        for _ in range(96):
            w.code(0xC5, 8); w.code(0, 5)  # 258 at distance 1
        w.code(1, 7); w.code(sym, 5); w.put(0, 13); w.code(0, 7)
        bodies[f"fixed_dist_{sym}"] = (LIBDEFLATE, w.finish())
    for nlit, ndist in ((287, 1), (288, 1), (257, 31), (257, 32)):
        litlen = complete(nlit, 8)
        dist = [0] if ndist == 1 else complete(ndist, 4)
        w = BitWriter()
        dynamic_header(w, litlen, dist)
        codes = canonical(litlen)
        for c in b"hi":
            w.code(codes[c], litlen[c])
        w.code(codes[256], litlen[256])
        bodies[f"dynamic_{nlit}_{ndist}"] = (LIBDEFLATE, w.finish())
    a = ord("a")
    w = BitWriter()
    dynamic_header(w, sparse(257, [(a, 1), (256, 2)]), [0])
    for _ in range(5):
        w.code(0, 1)
    w.code(2, 2)
    bodies["incomplete_litlen"] = (ISAL, w.finish())
    a_end_3 = sparse(258, [(a, 1), (256, 2), (257, 2)])
    w = BitWriter()
    dynamic_header(w, a_end_3, [2, 0])
    w.code(0, 1); w.code(3, 2); w.code(0, 2); w.code(2, 2)
    bodies["incomplete_dist"] = (ISAL, w.finish())
    w = BitWriter()
    dynamic_header(w, sparse(257, [(a, 1), (256, 1)]), [0], no_18=True)
    w.code(0, 1); w.code(0, 1); w.code(1, 1)
    bodies["incomplete_precode"] = (ISAL, w.finish())
    w = BitWriter()
    dynamic_header(w, sparse(257, [(a, 1), (256, 1)]), [0], extra_zeros=10)
    w.code(0, 1); w.code(0, 1); w.code(0, 1); w.code(1, 1)
    bodies["repeat_past_end"] = (LIBDEFLATE, w.finish())
    w = BitWriter()
    dynamic_header(w, a_end_3, [1])
    w.code(0, 1); w.code(3, 2); w.code(1, 1); w.code(2, 2)
    bodies["one_dist_code_other_bit"] = (LIBDEFLATE, w.finish())
    w = BitWriter()
    dynamic_header(w, a_end_3, [0])
    w.code(0, 1); w.code(3, 2); w.code(0, 1); w.code(2, 2)
    bodies["no_dist_code_used"] = (LIBDEFLATE, w.finish())
    w = BitWriter()
    w.put(0, 1); w.put(1, 2); w.code(0x30 + a, 8); w.code(0, 7)
    dynamic_header(w, sparse(257, [(256, 1)]), [0])
    w.code(1, 1)
    bodies["one_litlen_code_other_bit"] = (LIBDEFLATE, w.finish())
    return bodies


def raw_deflate(data, level=6, strategy=zlib.Z_DEFAULT_STRATEGY):
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
    return c.compress(data) + c.flush()


def multi_block(data):
    """Several blocks, each ended by a different flush, within -max_len."""
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    out = b""
    for i, flush in enumerate((zlib.Z_BLOCK, zlib.Z_SYNC_FLUSH,
                               zlib.Z_FULL_FLUSH)):
        out += c.compress(data[i * 1500:(i + 1) * 1500]) + c.flush(flush)
    return out + c.compress(data[4500:]) + c.flush()


def decode_diff_header(kind, small_limit=16, piece=0, chunk=0):
    """kind: 0 a whole stream, 1/2/3 a body wrapped for zlib's, libdeflate's
    or ISA-L's reading of it."""
    return bytes([kind, small_limit, piece, chunk])


def decode_diff_seeds():
    seeds = {}
    for name, (backend, body) in strict_bodies().items():
        # Wrapped for the library that takes it, and for zlib's reading.
        seeds[f"strict_{name}"] = decode_diff_header(1 + backend) + body
        seeds[f"strict_{name}_zlib"] = decode_diff_header(1) + body
    msg = text(3000)
    for wrap, kind in (("zlib", 1), ("libdeflate", 2), ("isal", 3)):
        for name, body in (
                ("text", raw_deflate(msg)),
                ("fixed", raw_deflate(msg, strategy=zlib.Z_FIXED)),
                ("huffman", raw_deflate(msg, strategy=zlib.Z_HUFFMAN_ONLY)),
                ("stored", raw_deflate(noise(2000), 0)),
                ("blocks", multi_block(text(6000, 3)))):
            seeds[f"body_{name}_{wrap}"] = decode_diff_header(kind) + body
        seeds[f"body_text_{wrap}_limit"] = decode_diff_header(
            kind, 200, 7, 3) + raw_deflate(msg)
        seeds[f"body_text_{wrap}_no_limit"] = decode_diff_header(
            kind, NO_SMALL_LIMIT) + raw_deflate(msg)
    seeds["stream_gzip"] = decode_diff_header(0) + compress(msg, GZIP)
    seeds["stream_gzip_no_limit"] = decode_diff_header(
        0, NO_SMALL_LIMIT) + compress(msg, GZIP)
    seeds["stream_zlib_truncated_no_limit"] = decode_diff_header(
        0, NO_SMALL_LIMIT) + compress(msg, ZLIB)[:-5]
    seeds["stream_zlib"] = decode_diff_header(0) + compress(msg, ZLIB)
    seeds["stream_gzip_fields"] = decode_diff_header(0) + \
        gzip_with_header_fields(msg)
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
    write("decode_diff", decode_diff_seeds())
    write("roundtrip", roundtrip_seeds())
