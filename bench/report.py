#!/usr/bin/env python3
"""Writes results/benchmarks.md and results/benchmarks.png from the JSON that
codec_bench and e2e_bench produced, leading with the ratios a user compares
(stock gzip, the pooled default, ISA-L-1 and no compression, per size), and
picks the default backend and level by the rule docs/backends.md states in
"Choosing one" (the fastest within 5% of zlib-6's bytes).

Standard library only; the chart is drawn by gnuplot (Debian: gnuplot-nox).

  report.py --codec a.json [b.json ...] --e2e e2e.json [--e2e-tuned t.json]
            --conditions step.json --md out.md [--png out.png]
  report.py --codec a.json [b.json ...] --recommend
      prints the setup name of the recommended default (e.g. libdeflate-6)
"""

import argparse
import datetime
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile

import conditions

# The default's rule: wire bytes within 5% of stock zlib-6 on realistic
# payloads, and the fastest deflate that keeps that.
REALISTIC = ("proto", "json", "source")
CHOICE_SIZES = (1024, 64 * 1024, 1 << 20)
BYTES_TOLERANCE = 1.05
REFERENCE = "zlib-6"  # byte-identical to stock gRPC's deflate

# The summary compares these setups on the protobuf-records payload.
GLANCE_KIND = "proto"
FASTEST = "isal-1"

BACKEND_ORDER = {"stock": 0, "zlib": 1, "libdeflate": 2, "isal": 3}


def size_label(size):
    if size >= 1 << 20 and size % (1 << 20) == 0:
        return "%d MiB" % (size >> 20)
    if size >= 1 << 10 and size % (1 << 10) == 0:
        return "%d KiB" % (size >> 10)
    return "%d B" % size


def fmt(value, digits=1):
    if value is None:
        return "n/a"
    return "%.*f" % (digits, value)


def fmt_x(value, digits=2):
    return "n/a" if value is None else "%.*fx" % (digits, value)


def fmt_us(value):
    """Latency or time: 3 significant figures, in us or ms."""
    if value is None:
        return "n/a"
    if value >= 10000:
        return "%.1f ms" % (value / 1000)
    if value >= 1000:
        return "%.2f ms" % (value / 1000)
    if value >= 100:
        return "%.0f us" % value
    if value >= 10:
        return "%.1f us" % value
    return "%.2f us" % value


def fmt_kib(value):
    return "n/a" if value is None else "%.1f KiB" % (value / 1024)


def ratio(a, b):
    return a / b if a and b else None


def geomean(values):
    values = [v for v in values if v]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def median(values):
    values = sorted(values)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] +
                                                values[mid]) / 2


def met(ok):
    return "**MET**" if ok else "**NOT MET**"


def impl_key(name):
    """Sort key: stock, then zlib, libdeflate, isal, each by level;
    decoders ("isal@zlib-6") by decoder, then by encoder the same way."""
    decoder, at, encoder = name.partition("@")
    if at:
        return impl_key(decoder) + impl_key(encoder)
    backend, _, level = name.partition("-")
    rank = int(level) if level.isdigit() else -1
    return (BACKEND_ORDER.get(backend, 9), rank)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


# --- Inputs ---------------------------------------------------------------


def in_us(benchmark, key):
    """A Google Benchmark time (`cpu_time`, `real_time`) in microseconds."""
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3,
             "s": 1e6}[benchmark.get("time_unit", "us")]
    return benchmark[key] * scale


def load_codec(paths):
    """Rows keyed by (op, kind, size, impl), from Google Benchmark JSON, and
    those of names with a tail ("/deflate", "/sliced", "/cold") apart, keyed
    by (op, kind, size, impl, tail).

    Prefers the median aggregate of repetitions; a run without repetitions
    (the smoke test) has only plain iterations, which are used as they are.
    Adds time_us (the benchmark thread's CPU time per op: on a shared
    machine it is what other load disturbs least) and wall_us.
    """
    rows, context, cvs = {}, {}, {}
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        context = context or doc.get("context", {})
        for b in doc.get("benchmarks", []):
            if b.get("error_occurred"):
                raise SystemExit("%s: %s failed: %s" %
                                 (path, b.get("name"), b.get("error_message")))
            is_median = b.get("run_type") == "aggregate" and \
                b.get("aggregate_name") == "median"
            is_plain = b.get("run_type", "iteration") == "iteration"
            name = b.get("run_name", b["name"])
            op, kind, size, impl, *tail = name.split("/")
            key = (op, kind, int(size), impl) + tuple(tail)
            if b.get("aggregate_name") == "cv":
                cvs[key] = b["cpu_time"]
            if not (is_median or is_plain):
                continue
            if key in rows and not is_median:
                continue
            b["time_us"] = in_us(b, "cpu_time")
            b["wall_us"] = in_us(b, "real_time")
            rows[key] = b
    for key, cv in cvs.items():
        if key in rows:
            rows[key]["time_cv"] = cv
    tailed = {k: v for k, v in rows.items() if len(k) > 4}
    rows = {k: v for k, v in rows.items() if len(k) == 4}
    return rows, tailed, context


def load_e2e(path):
    if not path:
        return None
    with open(path) as f:
        doc = json.load(f)
    cells = {}
    for r in doc["rows"]:
        cells.setdefault((r["rpc"], r["threads"], r["kind"], r["size"]),
                         {})[r["setup"]] = r
    doc["cells"] = cells
    doc.setdefault("setups", [])
    return doc


def latency_cells(e2e):
    """Single-stream cells, by kind as in the run, then size."""
    kinds = []
    for r in e2e["rows"]:
        if r["threads"] == 1 and r["kind"] not in kinds:
            kinds.append(r["kind"])
    cells = [c for c in e2e["cells"] if c[1] == 1]
    return sorted(cells, key=lambda c: (kinds.index(c[2]), c[3]))


def load_cells(e2e):
    return sorted(c for c in e2e["cells"] if c[1] > 1)


def pooled_setups(e2e):
    return [s for s in e2e["setups"] if s not in ("none", "stock")]


def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "kernel": platform.release(),
        "date": datetime.datetime.now(datetime.timezone.utc)
        .strftime("%Y-%m-%d %H:%M UTC"),
    }


# --- Ratios ---------------------------------------------------------------


def paired(cell, a, b, key="rep_p50_us"):
    """Median over repetitions of a's p50 / b's p50 in that repetition.

    Within a repetition the setups run back to back, so pairing them
    cancels load that comes and goes between repetitions on a shared
    machine.
    """
    ra, rb = cell.get(a), cell.get(b)
    if not ra or not rb:
        return None
    return median([x / y for x, y in zip(ra.get(key, []), rb.get(key, []))
                   if x and y])


def field(cell, setup, key):
    row = cell.get(setup)
    return row.get(key) if row else None


# --- The default backend and level ---------------------------------------


def choice_table(codec):
    """Per compressing impl: worst and geometric-mean bytes relative to
    zlib-6 and geometric-mean compress speed relative to zlib-6 (zlib-6's
    CPU time / the impl's), over the realistic kinds at 1 KiB to 1 MiB."""
    impls = sorted({k[3] for k in codec if k[0] == "compress" and
                    k[3] != "stock"}, key=impl_key)
    out = {}
    for impl in impls:
        sizes, speeds, worst = [], [], None
        for kind in REALISTIC:
            for size in CHOICE_SIZES:
                row = codec.get(("compress", kind, size, impl))
                ref = codec.get(("compress", kind, size, REFERENCE))
                if not row or not ref:
                    continue
                r = row["output_bytes"] / ref["output_bytes"]
                sizes.append(r)
                speeds.append(ref["time_us"] / row["time_us"])
                if worst is None or r > worst[0]:
                    worst = (r, kind, size)
        if sizes:
            out[impl] = {"worst": worst, "bytes": geomean(sizes),
                         "speed": geomean(speeds), "cells": len(sizes)}
    return out


def recommend(codec):
    """The fastest impl whose bytes stay within the tolerance everywhere."""
    choices = choice_table(codec)
    eligible = [i for i, c in choices.items()
                if c["worst"][0] <= BYTES_TOLERANCE]
    if not eligible:
        return None, choices
    return max(eligible, key=lambda i: choices[i]["speed"]), choices


# --- At a glance ----------------------------------------------------------


def throughput_ratio(e2e, cell_key, name):
    cell = e2e["cells"][cell_key]
    return paired(cell, name, "stock", "rep_msgs_per_s") or \
        ratio(field(cell, name, "msgs_per_s"),
              field(cell, "stock", "msgs_per_s"))


def glance_section(e2e):
    """The ratios that matter, per size: each setup's round trip against no
    compression's, how much faster the pooled ones are than stock, in time
    and in CPU, and what they put on the wire against stock."""
    default = e2e.get("default_setup")
    pooled = [s for s in (default, FASTEST) if s in e2e["setups"]]
    times, costs = [], []
    for key in latency_cells(e2e):
        if key[2] != GLANCE_KIND:
            continue
        c = e2e["cells"][key]
        size = size_label(key[3])
        times.append([size, fmt_us(field(c, "none", "p50_us"))] +
                     [fmt_x(paired(c, s, "none"))
                      for s in ["stock"] + pooled])
        row = [size]
        for s in pooled:
            row += [fmt_x(paired(c, "stock", s)),
                    fmt_x(ratio(field(c, "stock", "cpu_us_per_msg"),
                                field(c, s, "cpu_us_per_msg"))),
                    fmt_x(ratio(field(c, s, "wire_bytes"),
                                field(c, "stock", "wire_bytes")), 3)]
        costs.append(row)
    labels = [setup_label(e2e, s) for s in pooled]
    out = ["## At a glance\n",
           "Protobuf records echoed on loopback, one message at a time. "
           "Ratios are paired: the median over repetitions of the ratio of "
           "two setups' p50 in that repetition (they ran back to back, so "
           "load that comes and goes cancels). CPU is client plus server "
           "process CPU per round trip.\n",
           "Round trip against no compression (1.00x: as fast as sending "
           "the bytes as they are; loopback is the link where compression "
           "helps least, [links.md](links.md) has slower ones):\n",
           table(["size", "none", "stock gzip"] + labels, times), "",
           "Pooled against stock gzip (above 1.00x: faster, or less CPU; "
           "wire bytes below 1.000x: smaller):\n",
           table(["size"] + ["%s %s" % (l, what) for l in labels
                             for what in ("faster", "less CPU",
                                          "wire bytes")], costs), ""]
    for key in load_cells(e2e):
        if key[2] != GLANCE_KIND:
            continue
        c = e2e["cells"][key]
        out.append(
            "Server throughput, %d concurrent streams of %s records: %s." %
            (key[1], size_label(key[3]), "; ".join(
                "%s %s stock's round trips per second, %s less server CPU "
                "per round trip" % (
                    setup_label(e2e, s), fmt_x(throughput_ratio(e2e, key, s)),
                    fmt_x(ratio(field(c, "stock", "server_cpu_us_per_msg"),
                                field(c, s, "server_cpu_us_per_msg"))))
                for s in pooled)))
        out.append("")
    return out


# --- Markdown -------------------------------------------------------------


def setup_label(e2e, name):
    return name + (" (default)" if name == e2e.get("default_setup") else "")


def e2e_latency_table(e2e):
    setups = e2e["setups"]
    pooled = pooled_setups(e2e)
    header = ["payload", "size"] + ["%s p50" % setup_label(e2e, s)
                                    for s in setups]
    header += ["stock/%s" % s for s in pooled]
    header += ["%s/none" % s for s in pooled]
    rows = []
    for c in latency_cells(e2e):
        m = e2e["cells"][c]
        rows.append([c[2], size_label(c[3])] +
                    [fmt_us(field(m, s, "p50_us")) for s in setups] +
                    [fmt_x(paired(m, "stock", s)) for s in pooled] +
                    [fmt_x(paired(m, s, "none")) for s in pooled])
    return table(header, rows)


def e2e_bytes_table(e2e):
    setups = [s for s in e2e["setups"] if s != "none"]
    header = ["payload", "size", "request bytes"] + \
        ["%s wire bytes" % s for s in setups] + \
        ["%s/stock" % s for s in setups if s != "stock"]
    rows = []
    for c in latency_cells(e2e):
        m = e2e["cells"][c]
        any_row = next(iter(m.values()))
        rows.append([c[2], size_label(c[3]), any_row["request_bytes"]] +
                    [field(m, s, "wire_bytes") for s in setups] +
                    [fmt_x(ratio(field(m, s, "wire_bytes"),
                                 field(m, "stock", "wire_bytes")), 3)
                     for s in setups if s != "stock"])
    return table(header, rows)


def e2e_cpu_table(e2e):
    setups = e2e["setups"]
    header = ["payload", "size"] + \
        ["%s CPU us (client + server)" % s for s in setups] + \
        ["CPU stock/%s" % s for s in pooled_setups(e2e)]
    rows = []
    for c in latency_cells(e2e):
        m = e2e["cells"][c]

        def cpu(s):
            row = m.get(s)
            if not row:
                return "n/a"
            return "%s (%s + %s)" % (fmt(row["cpu_us_per_msg"], 0),
                                     fmt(row["client_cpu_us_per_msg"], 0),
                                     fmt(row["server_cpu_us_per_msg"], 0))

        rows.append([c[2], size_label(c[3])] + [cpu(s) for s in setups] +
                    [fmt_x(ratio(field(m, "stock", "cpu_us_per_msg"),
                                 field(m, s, "cpu_us_per_msg")))
                     for s in pooled_setups(e2e)])
    return table(header, rows)


def e2e_heap_table(e2e):
    """Heap per round trip on the target payload: what the setups allocate,
    and how much of it is zlib state and page faults."""
    setups = e2e["setups"]
    rows = []
    for c in latency_cells(e2e):
        if c[2] != GLANCE_KIND:
            continue
        m = e2e["cells"][c]
        for s in setups:
            r = m.get(s)
            if not r:
                continue
            rows.append([size_label(c[3]), s,
                         fmt_kib(r["heap_bytes_per_msg"]),
                         fmt(r["allocs_per_msg"], 1),
                         "%s / %s" % (fmt(r["deflate_state_allocs_per_msg"] +
                                          r["inflate_state_allocs_per_msg"],
                                          1),
                                      fmt_kib(r["deflate_state_bytes_per_msg"] +
                                              r["inflate_state_bytes_per_msg"])),
                         fmt(r["client_faults_per_msg"] +
                             r["server_faults_per_msg"], 1),
                         "%d / %d" % (r["pool_created"], r["pool_reused"]),
                         fmt(r["client_rss_bytes"] / (1 << 20), 1),
                         fmt(r["server_rss_bytes"] / (1 << 20), 1)])
    return table(["size", "setup", "heap allocated", "allocs",
                  "zlib state allocs / bytes", "page faults",
                  "contexts created / reused", "client RSS MiB",
                  "server RSS MiB"], rows)


def load_table(e2e):
    rows = []
    for c in load_cells(e2e):
        m = e2e["cells"][c]
        for s in e2e["setups"]:
            r = m.get(s)
            if not r:
                continue
            rows.append([
                "%s %s, %d streams" % (c[2], size_label(c[3]), c[1]),
                setup_label(e2e, s), fmt(r["msgs_per_s"], 0),
                fmt_x(ratio(r["msgs_per_s"], field(m, "stock", "msgs_per_s"))),
                fmt_us(r["p50_us"]), fmt_us(r["p99_us"]),
                fmt(r["server_cpu_us_per_msg"], 0),
                fmt_x(ratio(field(m, "stock", "server_cpu_us_per_msg"),
                            r["server_cpu_us_per_msg"])),
                fmt(r["client_cpu_us_per_msg"], 0), r["wire_bytes"],
                fmt(r["server_rss_bytes"] / (1 << 20), 1)])
    return table(["load", "setup", "round trips/s", "vs stock", "p50",
                  "p99", "server CPU us/round trip",
                  "server CPU stock/this", "client CPU us/round trip",
                  "wire bytes/msg", "server RSS MiB"], rows)


def choice_section(codec, recommended, choices, e2e):
    out = []
    ref_note = ("Compress CPU time and output bytes of one message through "
                "the pooled codec, relative to zlib-6 (which is byte for "
                "byte what stock gRPC sends), from the codec benchmarks "
                "below. *bytes* > 1 is more on the wire; *speed* > 1 is "
                "faster. The rule: the default keeps wire bytes within "
                "%d%% of zlib-6 on every realistic payload (%s) at %s, and "
                "is the fastest that does." %
                (round((BYTES_TOLERANCE - 1) * 100), ", ".join(REALISTIC),
                 ", ".join(size_label(s) for s in CHOICE_SIZES)))
    out.append(ref_note + "\n")
    if recommended:
        c = choices[recommended]
        out.append("**Recommended default: %s** — compresses %s faster "
                   "than zlib-6 (geometric mean over those %d cells) for "
                   "%s the bytes (worst cell %s, %s %s).\n" %
                   (recommended, fmt_x(c["speed"]), c["cells"],
                    fmt_x(c["bytes"], 3), fmt_x(c["worst"][0], 3),
                    c["worst"][1], size_label(c["worst"][2])))
    else:
        out.append("**No backend and level** keeps the bytes within the "
                   "tolerance everywhere.\n")
    rows = []
    for impl in sorted(choices, key=impl_key):
        c = choices[impl]
        rows.append([impl + (" **(recommended)**" if impl == recommended
                             else ""),
                     fmt_x(c["bytes"], 3),
                     "%s (%s %s)" % (fmt_x(c["worst"][0], 3), c["worst"][1],
                                     size_label(c["worst"][2])),
                     fmt_x(c["speed"]),
                     "yes" if c["worst"][0] <= BYTES_TOLERANCE else "no"])
    out.append(table(["backend-level", "bytes vs zlib-6 (geo. mean)",
                      "worst bytes vs zlib-6", "compress speed vs zlib-6 "
                      "(geo. mean)", "within %d%%" %
                      round((BYTES_TOLERANCE - 1) * 100)], rows))
    out.append("")
    out.append("Per payload and size (bytes vs zlib-6 / compress speed vs "
               "zlib-6); decompression depends on the backend only, see "
               "the codec tables:\n")
    kinds = [k for k in REALISTIC] + sorted(
        {k[1] for k in codec} - set(REALISTIC))
    impls = sorted({k[3] for k in codec if k[0] == "compress"
                    and k[3] != "stock"}, key=impl_key)
    rows = []
    for kind in kinds:
        for impl in impls:
            cells = []
            for size in CHOICE_SIZES:
                row = codec.get(("compress", kind, size, impl))
                ref = codec.get(("compress", kind, size, REFERENCE))
                if not row or not ref:
                    cells.append("n/a")
                    continue
                cells.append("%s / %s" % (
                    fmt(row["output_bytes"] / ref["output_bytes"], 3),
                    fmt_x(ref["time_us"] / row["time_us"])))
            rows.append([kind, impl] + cells)
    out.append(table(["payload", "backend-level"] +
                     [size_label(s) for s in CHOICE_SIZES], rows))
    out.append("")
    return out


def codec_tables(codec):
    out = []
    kinds = sorted({k[1] for k in codec},
                   key=lambda k: (k not in REALISTIC, k))
    for op in ("compress", "decompress"):
        for size in sorted({k[2] for k in codec if k[0] == op}):
            impls = sorted({k[3] for k in codec if k[0] == op and
                            k[2] == size}, key=impl_key)
            # The run measures 1 B on one payload only.
            here = [k for k in kinds if any(
                (op, k, size, i) in codec for i in impls)]
            # The decoder matrix runs on one payload; its table is apart.
            if len(here) > 1:
                impls = [i for i in impls if all(
                    (op, k, size, i) in codec for k in here)]
            rows = []
            for impl in impls:
                row = [impl]
                for kind in here:
                    b = codec.get((op, kind, size, impl))
                    if not b:
                        row.append("n/a")
                        continue
                    cv = (" ±%.0f%%" % (b["time_cv"] * 100)
                          if "time_cv" in b else "")
                    if op == "compress":
                        row.append("%s%s, %d B" % (fmt_us(b["time_us"]), cv,
                                                   b["output_bytes"]))
                    else:
                        row.append("%s%s" % (fmt_us(b["time_us"]), cv))
                b = codec.get((op, GLANCE_KIND, size, impl)) or \
                    codec.get((op, here[0], size, impl))
                row += [fmt(b.get("allocs_per_op"), 1),
                        fmt_kib(b.get("heap_bytes_per_op")),
                        fmt_kib(b.get("zlib_state_bytes_per_op")),
                        fmt(b.get("minor_faults_per_op"), 1),
                        fmt_kib(b.get("context_heap_bytes"))
                        if b.get("context_heap_bytes") else "none kept"]
                rows.append(row)
            out.append("### %s, %s\n" % (op, size_label(size)))
            out.append(table(
                ["impl"] + here +
                ["allocs/op (%s)" % GLANCE_KIND, "heap/op",
                 "zlib state/op", "faults/op", "heap per pooled context"],
                rows))
            out.append("")
    return out


DECODERS = ("zlib", "libdeflate", "isal")
ENCODERS = ("zlib-6", "libdeflate-6", "isal-1")
FORMATS = ("gzip", "deflate")


def decoder_row(codec, tailed, fmt, kind, size, impl):
    if fmt == "gzip":
        return codec.get(("decompress", kind, size, impl))
    return tailed.get(("decompress", kind, size, impl, "deflate"))


def decoder_cells(codec, tailed):
    """(kind, size) of the decoder matrix: every decoder on every encoder's
    gzip."""
    cells = {(k[1], k[2]) for k in codec if k[0] == "decompress"}
    return sorted(c for c in cells if all(
        ("decompress", c[0], c[1], "%s@%s" % (d, e)) in codec
        for d in DECODERS for e in ENCODERS))


def decoder_table(codec, tailed):
    """Rows: an encoder's output (format, size); columns: the decoders, time
    per message and speed vs zlib's decoder on the same input, the fastest
    in bold; core's own path (stock) where its input is, zlib-6 gzip."""
    rows = []
    cells = decoder_cells(codec, tailed)
    kinds = sorted({c[0] for c in cells})
    for fmt in FORMATS:
        for kind, size in cells:
            for encoder in ENCODERS:
                found = {d: decoder_row(codec, tailed, fmt, kind, size,
                                        "%s@%s" % (d, encoder))
                         for d in DECODERS}
                if not any(found.values()):
                    continue
                ref = found["zlib"]
                timed = {d: r["time_us"] for d, r in found.items() if r}
                fastest = min(timed, key=timed.get)
                row = ["%s, %s%s" % (fmt, size_label(size),
                                     "" if len(kinds) == 1 else ", " + kind),
                       encoder]
                stock = codec.get(("decompress", kind, size, "stock"))
                row.append(
                    "%s (%s)" % (fmt_us(stock["time_us"]),
                                 fmt_x(ratio(ref["time_us"],
                                             stock["time_us"])))
                    if fmt == "gzip" and encoder == "zlib-6" and stock and
                    ref else "")
                for d in DECODERS:
                    r = found[d]
                    if not r:
                        row.append("n/a")
                        continue
                    cell = "%s (%s)" % (fmt_us(r["time_us"]), fmt_x(
                        ratio(ref["time_us"], r["time_us"]) if ref else None))
                    row.append("**%s**" % cell if d == fastest else cell)
                # Decoders within noise of the fastest (the larger of the
                # two spreads, 5% at least) are named with it.
                close = [d for d in DECODERS if d != fastest and d in timed
                         and timed[d] <= timed[fastest] * (1 + max(
                             0.05, found[d].get("time_cv", 0),
                             found[fastest].get("time_cv", 0)))]
                row.append(" ".join([fastest] + ["≈ " + d for d in close]))
                rows.append(row)
    return kinds, table(["input (format, size)", "written by",
                         "stock (core's path)"] + list(DECODERS) +
                        ["fastest"], rows)


FEEDS = ("sliced", "cold")


def feed_rows(codec, tailed):
    """Per op, size and impl with a sliced or cold run: warm, sliced and
    cold time side by side."""
    keys = sorted({k[:4] for k in tailed if k[4] in FEEDS},
                  key=lambda k: (k[0], k[1], k[2], impl_key(k[3])))
    rows = []
    for op, kind, size, impl in keys:
        warm = codec.get((op, kind, size, impl))
        sliced = tailed.get((op, kind, size, impl, "sliced"))
        cold = tailed.get((op, kind, size, impl, "cold"))
        base = warm["time_us"] if warm else None

        def vs(row):
            return fmt_x(ratio(row["time_us"], base)) if row else "n/a"

        def faults(row):
            return fmt(row.get("minor_faults_per_op"), 1) if row else "n/a"

        rows.append([
            op, "%s %s" % (kind, size_label(size)), impl,
            fmt_us(base),
            "%s, %d slices" % (fmt_us(sliced["time_us"]),
                               sliced.get("input_slices", 0))
            if sliced else "one slice, as warm",
            fmt_us(cold["time_us"]) if cold else "n/a",
            vs(sliced) if sliced else "", vs(cold),
            "%s / %s" % (faults(warm), faults(cold)),
            "%d" % cold["messages"] if cold else "n/a"])
    return rows


def feed_section(codec, tailed):
    rows = feed_rows(codec, tailed)
    if not rows:
        return []
    out = ["## Input as a server meets it: sliced and cold\n"]
    out.append(
        "The default setups again, with the input fed as gRPC core hands "
        "it to the codec on a server. *Sliced*: the slice layout measured "
        "on gRPC 1.51 over loopback (`SlicedLengths` in "
        "`bench/codec_bench.cc`): a received message comes as sub-slices "
        "of the transport's 64 KiB reads, starting anywhere in the first "
        "(here: half the message, at most 32 KiB, then 64 KiB slices); a "
        "sent one is one slice up to 1 MiB, as grpcpp serializes in 1 MiB "
        "blocks, so only the 1 MiB payload (cut as its 4-byte field header "
        "makes it, 1 MiB - 4 B + 4 B) differs from warm. *Cold*: one slice, "
        "but a rotation over that many distinct messages of the payload "
        "(twice the last-level cache of input), each output held until its "
        "message comes round again, run in a process of its own. *Warm* is "
        "the same message in one slice every time (the tables above). "
        "Decompress is what each default setup's server does with what "
        "it receives: the library's gzip decoder on that setup's output "
        "(stock: core's path on zlib-6). "
        "*x/warm* > 1 is slower than warm. Faults are minor page faults "
        "per message: in the cold process many outputs are held, so glibc "
        "no longer trims the heap top, which is most of stock's warm cost "
        "at 1 KiB. At 1 KiB the cold penalty is mostly the messages being "
        "distinct, not memory: it is there already with 16 distinct "
        "messages that all fit in L2 (a loop over one message lets the "
        "branch predictors learn it).\n")
    out.append(table(["op", "payload", "impl", "warm", "sliced", "cold",
                      "sliced/warm", "cold/warm", "faults warm / cold",
                      "cold messages"], rows))
    out.append("")
    return out


def insitu_rows(e2e, codec, tailed):
    """Codec time per message inside the e2e server and client (the
    library's own counters) beside codec_bench's figure for the same
    payload, size, backend, level and decoder."""
    decoder = e2e.get("gzip_decoder") or "libdeflate"
    rows = []
    for c in latency_cells(e2e):
        if c[2] != GLANCE_KIND or c[3] < 1024:
            continue
        cell = e2e["cells"][c]
        for setup in e2e["setups"]:
            r = cell.get(setup)
            if not r or setup in ("none", "stock") or \
                    "server_compress_us" not in r:
                continue
            for op, impl in (("compress", setup),
                             ("decompress", "%s@%s" % (decoder, setup))):
                warm = codec.get((op, c[2], c[3], impl))
                cold = tailed.get((op, c[2], c[3], impl, "cold"))
                server, client = r["server_%s_us" % op], \
                    r["client_%s_us" % op]
                insitu = max(server, client)
                bench = [row["time_us"] for row in (warm, cold) if row]
                # The bench figure nearest to what the server saw: warm and
                # cold bracket it.
                nearest = min(bench, key=lambda b: abs(insitu / b - 1)) \
                    if bench and insitu > 0 else None
                off = max(insitu / nearest, nearest / insitu) \
                    if nearest else None
                rows.append([
                    setup_label(e2e, setup), size_label(c[3]), op, impl,
                    fmt_us(server), fmt_us(client),
                    fmt_us(warm["time_us"]) if warm else "n/a",
                    fmt_us(cold["time_us"]) if cold else "n/a",
                    fmt_x(off) if off else "n/a",
                    met(off is not None and off <= 1.25)])
    return rows


def insitu_section(e2e, codec, tailed):
    rows = insitu_rows(e2e, codec, tailed)
    if not rows:
        return []
    out = ["## Codec time in situ vs benchmark\n"]
    out.append(
        "Time inside the codec per message in the end-to-end server and "
        "client processes (bidi, one stream, %s payload), from the "
        "library's own counters (`TrafficStats::codec_nanoseconds` over "
        "every message the codec handled during the timed runs), beside "
        "`codec_bench` on the same payload, size, backend, level and "
        "decoder (received messages are inflated by the default gzip "
        "decoder, %s, whoever compressed them): *warm* is one message over "
        "and over, *cold* a rotation over more distinct messages than the "
        "last-level cache holds. "
        "*off by* is the in-situ figure (the larger of server and client) "
        "against the nearer of the two; the target is 1.25x.\n" %
        (GLANCE_KIND, e2e.get("gzip_decoder") or "libdeflate"))
    out.append(table(["setup", "size", "op", "bench impl", "server",
                      "client", "bench warm", "bench cold", "off by",
                      "within 1.25x"], rows))
    out.append("")
    return out


def load_cost(path):
    """codec_cost_bench's JSON: medians by name."""
    if not path:
        return {}
    with open(path) as f:
        doc = json.load(f)
    rows = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and \
                b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        if b.get("run_type") != "aggregate" and name in rows:
            continue
        b["time_us"] = in_us(b, "cpu_time")
        rows[name] = b
    return rows


def skip_section(cost):
    skips = sorted({tuple(n.split("/")[1:3]) for n in cost
                    if n.startswith("skip/")},
                   key=lambda k: (k[0] not in REALISTIC + ("words", "text"),
                                  k[0], int(k[1])))
    if not skips:
        return []
    rows = []
    for kind, size in skips:
        off = cost.get("skip/%s/%s/off" % (kind, size))
        on = cost.get("skip/%s/%s/on" % (kind, size))
        judge = cost.get("judge/%s/%s" % (kind, size))
        if not off or not on:
            continue
        skipped = on.get("compressed", 1) == 0
        # A skipped message costs what "on" took; a compressed one, the
        # full compression plus the decision, which is what "judge" times
        # (the two compressions differ by noise alone).
        if skipped:
            cost_text = "%.1f%% of off" % (100.0 * on["time_us"] /
                                           off["time_us"])
        elif judge:
            cost_text = "+%.2f%% (the decision)" % (100.0 * judge["time_us"] /
                                                    off["time_us"])
        else:
            cost_text = "n/a"
        rows.append([
            kind, size_label(int(size)),
            "%d, %s" % (off["output_bytes"], fmt_us(off["time_us"])),
            "%d, %s" % (on["output_bytes"], fmt_us(on["time_us"])),
            "skipped" if skipped else "compressed",
            fmt_us(judge["time_us"]) if judge else "n/a", cost_text])
    out = ["## Skipping what does not compress\n"]
    out.append(
        "One message through the core codec's compress, the default backend "
        "and level, with `Options::skip_incompressible` off and on "
        "(`codec_cost_bench`, CPU time per message, median of repetitions): "
        "what goes on the wire and what it costs. *gzfile* is the "
        "machine's largest `.gz` files (under /usr/share/doc), "
        "*deflated* a gzip stream of prose; *judge* is the skip decision "
        "alone. Off, a message that does not shrink is compressed and then "
        "sent plain anyway. *cost with it on*: for a skipped message, "
        "its time against the full compression; for a compressed one, "
        "what the decision adds to it.\n")
    out.append(table(["payload", "size", "off: wire bytes, time",
                      "on: wire bytes, time", "on", "judge",
                      "cost with it on"], rows))
    out.append("")
    clock = cost.get("clock/overhead")
    cheapest = cost.get("clock/proto/1024/isal-1")
    default = cost.get("clock/proto/1024/default")
    one = cost.get("clock/proto/1/default")
    if clock and cheapest and default and one:
        out.append(
            "**Codec time's own cost.** Two clock reads and the counter "
            "updates take %s per message; the cheapest message the codec "
            "times, 1 KiB of proto through ISA-L-1, takes %s (%.2f%%; with "
            "the default backend %s, %.2f%%). A 1 B message, declined "
            "before any work and not timed, takes %s.\n" %
            ("%.0f ns" % (clock["time_us"] * 1e3),
             fmt_us(cheapest["time_us"]),
             100.0 * clock["time_us"] / cheapest["time_us"],
             fmt_us(default["time_us"]),
             100.0 * clock["time_us"] / default["time_us"],
             fmt_us(one["time_us"])))
    return out


def decoder_section(codec, tailed):
    kinds, text = decoder_table(codec, tailed)
    if not kinds:
        return []
    out = ["## Decoders\n"]
    out.append(
        "Every decoder on every default encoder's output, %s payload: gzip "
        "(what gRPC calls gzip) and the zlib format (gRPC's *deflate*). "
        "Time is CPU time per message; in brackets, speed against zlib's "
        "decoder on the same input (> 1 is faster); the fastest in bold, "
        "and under *fastest* with ≈ the others within the noise (the "
        "larger coefficient of variation of the two, 5%% at least). "
        "*stock* is core's own path (a fresh zlib stream per message) on "
        "the only input it gets from a stock peer, zlib-6 gzip. The "
        "libdeflate backend hands the zlib format to zlib (that format "
        "carries no size to allocate the output by), so its *deflate* "
        "cells are zlib's.\n" % ", ".join(kinds))
    out.append(text)
    out.append("")
    return out


def write_markdown(path, args, codec, tailed, context, e2e, tuned, png_name,
                   recommended, choices, cost):
    info = machine()
    cond = conditions.load(args.conditions)
    out = ["# pooled-gzip benchmarks\n"]
    out.append(
        "What gzip message compression costs a gRPC C++ service: stock gRPC "
        "gzip, pooled-gzip's default, pooled-gzip with ISA-L at "
        "level 1, and no compression, on the same machine, each client and "
        "server in processes of their own; then why the default is the "
        "default, and the codec alone.\n")
    out.append("Generated by `scripts/run_benchmarks.sh%s` on %s in %d s." %
               (" --quick" if args.quick else "", info["date"],
                cond["wall_s"]))
    out.append(conditions.describe(cond))
    out.append("")
    out.append(table(["machine", ""], [
        ["nproc", info["nproc"]], ["CPU", info["cpu"]],
        ["kernel", info["kernel"]],
        ["gRPC core", context.get("grpc_version", "n/a")],
        ["zlib", context.get("zlib_version", "n/a")],
        ["libdeflate, ISA-L", args.backend_versions or "n/a"],
        ["Google Benchmark library build",
         context.get("library_build_type", "n/a") +
         " (Debian's package; only the harness, not the measured code)"],
        ["end to end", "%d x %d ms per setup per cell, interleaved; load "
         "cell %d ms per repetition" %
         (e2e.get("reps", 0), e2e.get("budget_ms", 0),
          e2e.get("load_budget_ms", 0))],
        ["setups", ", ".join(setup_label(e2e, s) for s in e2e["setups"])],
        ["processes", "a new server and client process per setup and run"
         if e2e.get("fresh_pairs") else "one server and client per setup"],
        ["malloc", e2e.get("heap", "n/a")]]))
    out.append("")
    out += glance_section(e2e)
    if png_name:
        out.append("![benchmarks](%s)\n" % png_name)
    out.append(
        "**How the end-to-end runs are arranged.** `e2e_bench` only "
        "orchestrates: for a setup it starts one echo server process "
        "and one client process (itself, with `--role=server|client`) and "
        "drives them over pipes, asking the client for a warm-up and a "
        "timed run and the server for its counters before and after. %s "
        "Separate processes "
        "are required: once pooled-gzip is set up in a process, its codec "
        "takes every gzip message of that process, so stock gRPC is only "
        "stock in a process that never sets it up (each process reports "
        "whether the codec is active, and the orchestrator refuses a stock "
        "process with it or a pooled one without it). Setups: **none** (no "
        "compression), **stock** (gRPC core's gzip, zlib-6 with a fresh "
        "stream per message), and pooled gzip with a backend and level "
        "named `<backend>-<level>` on both sides, set with "
        "`pooled_gzip::Configure`; *(default)* marks the library's default. "
        "Within a cell the setups run one after another and which goes "
        "first rotates over the repetitions. A *message* is one round trip "
        "(a bidi stream, one client thread): a request and its echo, each "
        "compressed once and decompressed once. Ratios taken within one run "
        "are what to read; absolute numbers move with the load on this "
        "shared machine." %
        ("Every run gets a new pair of processes: on a busy machine a pair "
         "can sit in a slow state for seconds (how the scheduler placed it, "
         "which gRPC thread polls), which interleaving alone cannot cancel; "
         "with new pairs it is one run's luck, which the medians over "
         "repetitions drop. It also gives every run a fresh heap."
         if e2e.get("fresh_pairs") else
         "Each setup keeps its pair of processes for the whole run."))
    out.append("")

    out.append("## Choosing the default backend and level\n")
    out += choice_section(codec, recommended, choices, e2e)

    out.append("## End to end: latency per round trip\n")
    out.append("p50 over every round trip of all repetitions; ratios are "
               "paired (see At a glance). *stock/X* > 1: X is faster than stock; "
               "*X/none*: X's time over no compression's.\n")
    out.append(e2e_latency_table(e2e))
    out.append("")
    out.append("## End to end: wire bytes per message\n")
    out.append("One request as gRPC sends it (the 5-byte message prefix not "
               "counted): compressed by the setup's codec when that makes it "
               "smaller, as it is otherwise (core's rule, which pooled-gzip's "
               "codec keeps), so 1-byte messages travel uncompressed in every "
               "setup.\n")
    out.append(e2e_bytes_table(e2e))
    out.append("")
    out.append("## End to end: CPU per round trip\n")
    out.append("Process CPU time (user + system) of the client and the "
               "server during the measured runs, per round trip.\n")
    out.append(e2e_cpu_table(e2e))
    out.append("")
    out.append("## End to end: heap and memory per round trip (%s)\n" %
               GLANCE_KIND)
    out.append("Counted by the malloc interposer in both processes. zlib "
               "state is what zlib allocated inside `deflateInit2_` / "
               "`inflateInit2_` / `inflate` (stock: a fresh deflate state per "
               "message, ~256 KiB); page faults are both processes' minor "
               "faults. RSS is each process's resident set after its runs.\n")
    out.append(e2e_heap_table(e2e))
    out.append("")
    if load_cells(e2e):
        out.append("## Server throughput under concurrent load\n")
        out.append("A separate client process keeps that many bidi streams "
                   "busy (one thread each) against the setup's server for "
                   "each repetition; both share the machine's %s cores. "
                   "*Round trips/s* is what the pair achieved; server CPU "
                   "per round trip is what the server alone spent, so "
                   "*server CPU stock/this* is how many more round trips "
                   "the same server CPU serves.\n" % info["nproc"])
        out.append(load_table(e2e))
        out.append("")
    if tuned:
        out.append("## End to end with glibc's trim threshold raised\n")
        out.append("The same benchmark with `%s` in every process, a common "
                   "malloc tuning for servers: glibc then keeps freed memory "
                   "instead of returning it, stock no longer faults its zlib "
                   "state back in, and this is what pooling saves over a "
                   "tuned deployment.\n" % tuned.get("heap"))
        out.append(e2e_latency_table(tuned))
        out.append("")
        if load_cells(tuned):
            out.append("Server throughput under the same load, trim "
                       "threshold raised:\n")
            out.append(load_table(tuned))
            out.append("")

    out.append("## Codec micro-benchmarks\n")
    out.append("One message through gRPC core's zlib path (*stock*: a "
               "replica of `message_compress.cc`, fresh stream per message, "
               "1 KiB output slices) and through the pooled codec of each "
               "backend and level, slices in and slices out as the core "
               "codec calls it. Time is the benchmark thread's CPU time per "
               "message (median of repetitions in random order; ± is their "
               "coefficient of variation), each size in its own process; "
               "1 B only on one payload, as one byte is one byte. "
               "Decompress rows are *decoder@encoder*: *zlib@zlib-6* and "
               "the like decode stock's zlib-6 output, what a stock peer "
               "sends; *libdeflate@libdeflate-6* and *isal@isal-1* decode "
               "that backend's own output at its default level (every "
               "pairing is under Decoders). Heap per pooled context is what "
               "one context of that backend and level holds between "
               "messages (the pool keeps up to 2 per thread per kind, "
               "within its byte cap); heap/op is what one message "
               "allocates, its output included.\n")
    out += codec_tables(codec)
    out += decoder_section(codec, tailed)
    out += feed_section(codec, tailed)
    out += insitu_section(e2e, codec, tailed)
    out += skip_section(cost)
    with open(path, "w") as f:
        f.write("\n".join(out))


# --- Chart ----------------------------------------------------------------


def run_gnuplot(script, who):
    """Draws `script` with gnuplot; False, saying why on stderr, when there
    is no gnuplot or it fails."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("%s: gnuplot not found, no chart" % who, file=sys.stderr)
        return False
    result = subprocess.run([gnuplot], input=script, text=True,
                            capture_output=True)
    if result.returncode != 0:
        print("%s: gnuplot failed:\n%s" % (who, result.stderr),
              file=sys.stderr)
        return False
    return True


def write_chart(path, e2e, codec, recommended):
    setups = e2e["setups"]
    colors = ["#999999", "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e",
              "#9467bd", "#8c564b", "#e377c2"]
    with tempfile.TemporaryDirectory() as tmp:
        lines = []
        for c in latency_cells(e2e):
            if c[2] != GLANCE_KIND:
                continue
            m = e2e["cells"][c]
            lines.append('"%s" %s' % (size_label(c[3]), " ".join(
                str(field(m, s, "p50_us") or "NaN") for s in setups)))
        with open(os.path.join(tmp, "p50.dat"), "w") as f:
            f.write("\n".join(lines) + "\n")
        has_p50 = bool(lines)
        load = [c for c in load_cells(e2e) if c[2] == GLANCE_KIND]
        lines = []
        if load:
            m = e2e["cells"][load[0]]
            for i, s in enumerate(setups):
                if s in m:
                    lines.append('%d "%s" %s' % (i, s, m[s]["msgs_per_s"]))
        with open(os.path.join(tmp, "load.dat"), "w") as f:
            f.write("\n".join(lines) + "\n")
        has_load = bool(lines)
        # Trade-off: compress time against bytes, relative to zlib-6, at
        # 64 KiB (or the largest size measured), one series per realistic
        # payload.
        sizes = sorted({k[2] for k in codec if k[0] == "compress"})
        trade_size = 64 * 1024 if 64 * 1024 in sizes else sizes[-1]
        series = []
        for kind in REALISTIC:
            lines = []
            for impl in sorted({k[3] for k in codec if k[0] == "compress"
                                and k[3] != "stock"}, key=impl_key):
                row = codec.get(("compress", kind, trade_size, impl))
                ref = codec.get(("compress", kind, trade_size, REFERENCE))
                if row and ref:
                    lines.append("%g %g %s" % (
                        100.0 * row["output_bytes"] / ref["output_bytes"],
                        row["time_us"], impl))
            if lines:
                name = "trade_%s.dat" % kind
                with open(os.path.join(tmp, name), "w") as f:
                    f.write("\n".join(lines) + "\n")
                series.append((kind, name))
        if not has_p50 or not series:
            print("report.py: not enough data for a chart", file=sys.stderr)
            return False
        p50_plot = ", \\\n     ".join(
            '"%s/p50.dat" using %d%s title "%s" lc rgb "%s"' %
            (tmp, i + 2, ":xtic(1)" if i == 0 else "", s,
             colors[i % len(colors)]) for i, s in enumerate(setups))
        # Labels on the target payload's points only: three sets of
        # thirteen labels would cover each other.
        trade_plot = ", \\\n     ".join(
            '"%s/%s" using 1:2 with points pt 7 ps 1.2 lc rgb "%s" title '
            '"%s"%s' % (tmp, name, colors[(i + 2) % len(colors)], kind,
                        ', "" using 1:2:3 with labels offset 0.6,0.5 left '
                        'font ",7" notitle' if kind == GLANCE_KIND else "")
            for i, (kind, name) in enumerate(series))
        load_title = ("Server throughput, %s %s, %d streams" %
                      (GLANCE_KIND, size_label(load[0][3]), load[0][1])
                      if load else "")
        script = """
set terminal pngcairo enhanced size 1650,520 font "sans,10"
set output "{out}"
set multiplot layout 1,3 title "pooled-gzip: stock gRPC gzip vs pooled gzip per backend (client and server in separate processes)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set format y "10^{{%L}}"
set grid ytics
set key top left font ",8"
set xlabel "message size"
set title "End to end p50 per round trip ({kind} payload, bidi)"
set ylabel "microseconds (log)"
plot {p50_plot}
set title "{load_title}"
set style data boxes
unset logscale y
set format y "%g"
set yrange [0:*]
set ylabel "round trips per second"
set xlabel ""
unset key
set xtics rotate by -30
set xrange [-0.6:{nsetups}]
{load_plot}
set title "Codec: compress {trade_size}, time against bytes (zlib-6 = 100%)"
set xtics norotate
set autoscale x
set autoscale y
set logscale y
set format y "10^{{%L}}"
set xlabel "compressed size, % of zlib-6 (stock)"
set ylabel "CPU microseconds per message (log)"
set key top right font ",8"
set grid xtics
plot {trade_plot}
unset multiplot
""".format(out=path, kind=GLANCE_KIND, p50_plot=p50_plot,
           load_title=load_title, nsetups=len(setups) - 0.4,
           load_plot=('plot "%s/load.dat" using 1:3:xtic(2) with boxes '
                      'lc rgb "#1f77b4" notitle' % tmp) if has_load
           else 'set label 1 "no load cell" at graph 0.5,0.5 center\n'
                'plot 1 notitle',
           trade_plot=trade_plot, trade_size=size_label(trade_size))
        return run_gnuplot(script, "report.py")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--codec", nargs="+", required=True)
    parser.add_argument("--recommend", action="store_true",
                        help="print the recommended default and exit")
    parser.add_argument("--e2e")
    parser.add_argument("--e2e-tuned")
    parser.add_argument("--cost", help="codec_cost_bench's JSON")
    parser.add_argument("--md")
    parser.add_argument("--png")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--conditions",
                        help="the step's JSON from scripts/machine_load.sh")
    parser.add_argument("--backend-versions", default="")
    args = parser.parse_args()

    codec, tailed, context = load_codec(args.codec)
    recommended, choices = recommend(codec)
    if args.recommend:
        if not recommended:
            return 1
        print(recommended)
        return 0
    if not args.e2e or not args.md or not args.conditions:
        parser.error("--e2e, --md and --conditions are required without "
                     "--recommend")
    e2e = load_e2e(args.e2e)
    tuned = load_e2e(args.e2e_tuned)
    png_name = None
    if args.png and write_chart(args.png, e2e, codec, recommended):
        png_name = os.path.relpath(args.png, os.path.dirname(
            os.path.abspath(args.md)))
    write_markdown(args.md, args, codec, tailed, context, e2e, tuned,
                   png_name, recommended, choices, load_cost(args.cost))
    print("recommended default: %s" % recommended)
    return 0


if __name__ == "__main__":
    sys.exit(main())
