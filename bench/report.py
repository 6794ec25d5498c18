#!/usr/bin/env python3
"""Writes results/benchmarks.md and results/benchmarks.png from the JSON that
codec_bench and e2e_bench produced, with the targets of issue 4 checked next
to the measured values.

Standard library only; the chart is drawn by gnuplot (Debian: gnuplot-nox).

  report.py --codec a.json [b.json ...] --e2e e2e.json [--e2e-tuned t.json]
            --md out.md [--png out.png] [--runtime-seconds N]
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

MODES = ("none", "stock", "pooled")
SMALL_SIZES = (1, 1024)  # "1 B to 1 KiB" in the targets
LARGE_SIZE = 64 * 1024  # "64 KiB and up"
SPEEDUP_TARGET = 10.0
NONE_RATIO_TARGET = 1.3
# Repetitions of the same cell differ by about this much on a shared 2-core
# machine, so "no slower" is judged with it and the strict count is shown too.
NOISE_TOLERANCE = 0.05


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


def fmt_us(value):
    """Latency: 3 significant figures, in us or ms."""
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


def ratio(a, b):
    return a / b if a and b else None


def met(ok):
    return "**MET**" if ok else "**NOT MET**"


# --- Inputs ---------------------------------------------------------------


def load_codec(paths):
    """Rows keyed by (op, kind, size, impl), from Google Benchmark JSON.

    Prefers the median aggregate of repetitions; a run without repetitions
    (the smoke test) has only plain iterations, which are used as they are.
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
            op, kind, size, impl = name.split("/")[:4]
            key = (op, kind, int(size), impl)
            if b.get("aggregate_name") == "cv":
                cvs[key] = b["real_time"]
            if not (is_median or is_plain):
                continue
            if key in rows and not is_median:
                continue
            rows[key] = b
    # The coefficient of variation across repetitions, as a fraction.
    for key, cv in cvs.items():
        if key in rows:
            rows[key]["time_cv"] = cv
    return rows, context


def load_e2e(path):
    if not path:
        return None
    with open(path) as f:
        doc = json.load(f)
    cells = {}
    for r in doc["rows"]:
        cells.setdefault((r["rpc"], r["threads"], r["size"]), {})[r["mode"]] = r
    doc["cells"] = cells
    return doc


def cell_order(cells):
    rpc_rank = {"unary": 0, "bidi": 1}
    return sorted(cells, key=lambda c: (rpc_rank.get(c[0], 9), c[1], c[2]))


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


# --- Targets --------------------------------------------------------------


def cell_name(cell):
    rpc, threads, size = cell
    return "%s %d thr %s" % (rpc, threads, size_label(size))


def p50(cell_rows, mode):
    row = cell_rows.get(mode)
    return row["p50_us"] if row else None


def paired(cell_rows, a, b):
    """Median over repetitions of a's p50 / b's p50 in that repetition.

    Within a repetition the modes run back to back, so pairing them cancels
    load that comes and goes between repetitions on a shared machine.
    """
    ra, rb = cell_rows.get(a), cell_rows.get(b)
    if not ra or not rb:
        return None
    ratios = sorted(x / y for x, y in zip(ra["rep_p50_us"], rb["rep_p50_us"])
                    if x and y)
    if not ratios:
        return None
    mid = len(ratios) // 2
    return ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] +
                                                ratios[mid]) / 2


def target_rows(e2e, codec):
    """(target, scope, measured, verdict) for the report's first table."""
    out = []
    cells = e2e["cells"]
    small = [c for c in cell_order(cells) if c[2] in SMALL_SIZES]
    large = [c for c in cell_order(cells) if c[2] >= LARGE_SIZE]

    def spread(pairs):
        pairs = [(v, c) for v, c in pairs if v is not None]
        if not pairs:
            return "n/a", []
        lo, hi = min(pairs), max(pairs)
        return ("%.3fx (%s) to %.3fx (%s)" %
                (lo[0], cell_name(lo[1]), hi[0], cell_name(hi[1])), pairs)

    if small:
        text, pairs = spread([(paired(cells[c], "stock", "pooled"), c)
                              for c in small])
        ok = sum(1 for v, _ in pairs if v >= SPEEDUP_TARGET)
        out.append(("End to end, 1 B to 1 KiB: pooled at least %gx faster "
                    "than stock gzip (paired p50 stock/pooled >= %g)" %
                    (SPEEDUP_TARGET, SPEEDUP_TARGET),
                    "%d e2e rows" % len(pairs), text,
                    "%s (%d of %d rows)" % (met(ok == len(pairs) and pairs),
                                            ok, len(pairs))))
        text, pairs = spread([(paired(cells[c], "pooled", "none"), c)
                              for c in small])
        ok = sum(1 for v, _ in pairs if v <= NONE_RATIO_TARGET)
        out.append(("End to end, 1 B to 1 KiB: pooled within %gx of no "
                    "compression (paired p50 pooled/none <= %g)" %
                    (NONE_RATIO_TARGET, NONE_RATIO_TARGET),
                    "%d e2e rows" % len(pairs), text,
                    "%s (%d of %d rows)" % (met(ok == len(pairs) and pairs),
                                            ok, len(pairs))))

    # Zero zlib state per message, pooled, steady state.
    codec_pooled = [(k, b) for k, b in codec.items() if k[3] == "pooled"]
    codec_nonzero = [k for k, b in codec_pooled
                     if b.get("zlib_state_allocs_per_op", 0) > 0]
    out.append(("Steady state, codec: zero zlib-state allocations per "
                "message, pooled (compress and decompress)",
                "%d codec rows" % len(codec_pooled),
                "%d rows above zero%s" %
                (len(codec_nonzero),
                 "" if not codec_nonzero else " (" + ", ".join(
                     "/".join(map(str, k)) for k in codec_nonzero[:4]) + ")"),
                met(codec_pooled and not codec_nonzero)))
    pooled_rows = [(cells[c]["pooled"], c) for c in cell_order(cells)
                   if "pooled" in cells[c]]
    send = [(r["deflate_state_allocs_per_msg"], c) for r, c in pooled_rows]
    zero = sum(1 for v, _ in send if v == 0)
    worst = max(send) if send else (0, None)
    measured = "0 in %d of %d rows" % (zero, len(send))
    if worst[0] > 0:
        missed = [cells[c]["pooled"] for v, c in send if v > 0]
        measured += ("; worst %.3f allocs (%.1f KiB) per round trip in %s; "
                     "every row above zero is the pool creating contexts "
                     "(%d in all) for threads that were new to it" %
                     (worst[0], cells[worst[1]]["pooled"]
                      ["deflate_state_bytes_per_msg"] / 1024,
                      cell_name(worst[1]),
                      sum(r["pool_created"] for r in missed))
                     if all(r["pool_created"] > 0 for r in missed) else
                     "; worst %.3f allocs per round trip in %s" %
                     (worst[0], cell_name(worst[1])))
    out.append(("Steady state, end to end: zero allocations of deflate state "
                "per message, pooled (the send path the plugin owns)",
                "%d e2e rows" % len(send), measured,
                "%s (%d of %d rows)" % (met(zero == len(send) and send), zero,
                                        len(send))))
    recv = [r["inflate_state_allocs_per_msg"] for r, _ in pooled_rows]
    recv_kib = [r["inflate_state_bytes_per_msg"] / 1024 for r, _ in pooled_rows]
    if recv:
        out.append(("Steady state, end to end: zero allocations of inflate "
                    "state per message, pooled (receive path, still inflated "
                    "by gRPC core)",
                    "%d e2e rows" % len(recv),
                    "%.1f to %.1f allocs, %.1f to %.1f KiB per round trip" %
                    (min(recv), max(recv), min(recv_kib), max(recv_kib)),
                    met(max(recv) == 0) + " (out of the plugin's reach)"))
    stock_rows = [cells[c]["stock"] for c in cell_order(cells)
                  if "stock" in cells[c]]
    per_init = [r["deflate_state_bytes_per_msg"] / r["deflate_inits_per_msg"]
                for r in stock_rows if r["deflate_inits_per_msg"] > 0]
    if per_init:
        out.append(("Reference: stock allocates ~256 KiB of zlib state per "
                    "compressed message",
                    "%d e2e rows" % len(per_init),
                    "%.0f KiB per deflateInit2, %.1f to %.1f inits per round "
                    "trip" % (sum(per_init) / len(per_init) / 1024,
                              min(r["deflate_inits_per_msg"]
                                  for r in stock_rows),
                              max(r["deflate_inits_per_msg"]
                                  for r in stock_rows)),
                    "(reference)"))

    # 64 KiB and up: pooled no slower than stock.
    if large:
        text, pairs = spread([(paired(cells[c], "stock", "pooled"), c)
                              for c in large])
        ok = sum(1 for v, _ in pairs if v >= 1 - NOISE_TOLERANCE)
        strict = sum(1 for v, _ in pairs if v >= 1)
        out.append(("End to end, 64 KiB and up: pooled no slower than stock "
                    "(paired p50 stock/pooled >= %.2f, i.e. equal within %d%% "
                    "noise)" % (1 - NOISE_TOLERANCE, NOISE_TOLERANCE * 100),
                    "%d e2e rows" % len(pairs), text,
                    "%s (%d of %d rows; %d strictly >= 1)" %
                    (met(ok == len(pairs) and pairs), ok, len(pairs), strict)))
        # CPU per round trip is less disturbed by other load than latency.
        text, pairs = spread([(ratio(cells[c]["stock"]["cpu_us_per_msg"],
                                     cells[c]["pooled"]["cpu_us_per_msg"]), c)
                              for c in large])
        ok = sum(1 for v, _ in pairs if v >= 1 - NOISE_TOLERANCE)
        out.append(("End to end, 64 KiB and up: pooled costs no more CPU "
                    "than stock (CPU per round trip stock/pooled >= %.2f)" %
                    (1 - NOISE_TOLERANCE),
                    "%d e2e rows" % len(pairs), text,
                    "%s (%d of %d rows)" % (met(ok == len(pairs) and pairs),
                                            ok, len(pairs))))
    big_codec = sorted(k for k in codec if k[2] >= LARGE_SIZE and
                       k[3] == "stock" and (k[0], k[1], k[2], "pooled")
                       in codec)
    if big_codec:
        pairs = []
        for k in big_codec:
            stock = codec[k]["real_time"]
            pooled = codec[(k[0], k[1], k[2], "pooled")]["real_time"]
            pairs.append((stock / pooled, "/".join(map(str, k[:3]))))
        ok = sum(1 for v, _ in pairs if v >= 1 - NOISE_TOLERANCE)
        lo, hi = min(pairs), max(pairs)
        out.append(("Codec, 64 KiB and up: pooled no slower than stock "
                    "(time stock/pooled >= %.2f)" % (1 - NOISE_TOLERANCE),
                    "%d codec rows" % len(pairs),
                    "%.3fx (%s) to %.3fx (%s)" % (lo[0], lo[1], hi[0], hi[1]),
                    "%s (%d of %d rows)" % (met(ok == len(pairs)), ok,
                                            len(pairs))))
    return out


# --- Markdown -------------------------------------------------------------

PAIRED_NOTE = (
    "p50 and p99 are over every round trip of all repetitions. *Paired* "
    "ratios, which the targets use, are the median over repetitions of the "
    "ratio of the two modes' p50 in that repetition: the modes of a "
    "repetition run back to back, so load that comes and goes on this "
    "shared machine cancels out. With 1 MiB messages a run holds only a few "
    "round trips, so those rows are the noisiest; their CPU per round trip "
    "(next table) is steadier.\n")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


def e2e_latency_table(e2e):
    rows = []
    for c in cell_order(e2e["cells"]):
        m = e2e["cells"][c]
        rows.append([c[0], c[1], size_label(c[2])] +
                    [fmt_us(p50(m, mode)) for mode in MODES] +
                    [fmt(paired(m, "stock", "pooled"), 2) + "x",
                     fmt(paired(m, "pooled", "none"), 2) + "x",
                     fmt(ratio(p50(m, "stock"), p50(m, "pooled")), 2) + "x",
                     fmt(ratio(p50(m, "pooled"), p50(m, "none")), 2) + "x"] +
                    [fmt_us(m[mode]["p99_us"]) if mode in m else "n/a"
                     for mode in MODES])
    return table(["RPC", "client threads", "size", "none p50", "stock p50",
                  "pooled p50", "stock/pooled paired", "pooled/none paired",
                  "stock/pooled of p50s", "pooled/none of p50s", "none p99",
                  "stock p99", "pooled p99"], rows)


def e2e_cost_table(e2e):
    rows = []
    for c in cell_order(e2e["cells"]):
        m = e2e["cells"][c]

        def get(mode, key, digits=1, scale=1.0):
            return fmt(m[mode][key] * scale, digits) if mode in m else "n/a"

        rows.append([c[0], c[1], size_label(c[2])] +
                    [get(mode, "msgs_per_s", 0) for mode in MODES] +
                    [get(mode, "cpu_us_per_msg") for mode in MODES] +
                    [fmt(ratio(m["stock"]["cpu_us_per_msg"],
                               m["pooled"]["cpu_us_per_msg"]), 2) + "x"] +
                    [get(mode, "minor_faults_per_msg") for mode in MODES] +
                    [get(mode, "peak_rss_bytes", 1, 1.0 / (1 << 20))
                     for mode in MODES])
    return table(["RPC", "thr", "size", "none msg/s", "stock msg/s",
                  "pooled msg/s", "none CPU us/msg", "stock CPU us/msg",
                  "pooled CPU us/msg", "CPU stock/pooled", "none faults/msg",
                  "stock faults/msg", "pooled faults/msg", "none peak RSS MiB",
                  "stock peak RSS MiB", "pooled peak RSS MiB"], rows)


def e2e_alloc_table(e2e):
    rows = []
    for c in cell_order(e2e["cells"]):
        m = e2e["cells"][c]

        def state(mode, kind):
            r = m.get(mode)
            if not r:
                return "n/a"
            return "%.2f / %.1f KiB" % (r[kind + "_state_allocs_per_msg"],
                                        r[kind + "_state_bytes_per_msg"] /
                                        1024)

        rows.append([c[0], c[1], size_label(c[2]),
                     state("stock", "deflate"), state("pooled", "deflate"),
                     state("stock", "inflate"), state("pooled", "inflate")] +
                    [fmt(m[mode]["allocs_per_msg"], 1) if mode in m else "n/a"
                     for mode in MODES] +
                    ["%d / %d" % (m["pooled"]["pool_created"],
                                  m["pooled"]["pool_reused"])
                     if "pooled" in m else "n/a"])
    return table(["RPC", "thr", "size", "stock deflate state",
                  "pooled deflate state", "stock inflate state",
                  "pooled inflate state", "none heap allocs/msg",
                  "stock heap allocs/msg", "pooled heap allocs/msg",
                  "pool created / reused"], rows)


def codec_table(codec):
    rows = []
    keys = sorted({k[:3] for k in codec},
                  key=lambda k: (k[0] != "compress", k[1], k[2]))
    for op, kind, size in keys:
        s = codec.get((op, kind, size, "stock"))
        p = codec.get((op, kind, size, "pooled"))
        if not s or not p:
            continue
        unit = s.get("time_unit", "us")
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[unit]
        st, pt = s["real_time"] * scale, p["real_time"] * scale
        def cv(b):
            return " ±%.0f%%" % (b["time_cv"] * 100) if "time_cv" in b else ""

        rows.append([op, kind, size_label(size), fmt_us(st) + cv(s),
                     fmt_us(pt) + cv(p),
                     fmt(st / pt, 2) + "x",
                     fmt(p.get("bytes_per_second", 0) / 1e6, 1),
                     fmt(s.get("allocs_per_op"), 1),
                     fmt(p.get("allocs_per_op"), 1),
                     fmt(s.get("heap_bytes_per_op", 0) / 1024, 1),
                     fmt(p.get("heap_bytes_per_op", 0) / 1024, 1),
                     "%s / %s KiB" % (fmt(s.get("zlib_state_allocs_per_op"), 1),
                                      fmt(s.get("zlib_state_bytes_per_op", 0) /
                                          1024, 1)),
                     "%s / %s KiB" % (fmt(p.get("zlib_state_allocs_per_op"), 1),
                                      fmt(p.get("zlib_state_bytes_per_op", 0) /
                                          1024, 1)),
                     fmt(s.get("minor_faults_per_op"), 1),
                     fmt(p.get("minor_faults_per_op"), 1),
                     "%d" % p.get("output_bytes", 0)])
    return table(["op", "payload", "size", "stock time", "pooled time",
                  "stock/pooled", "pooled MB/s", "stock allocs/op",
                  "pooled allocs/op", "stock heap KiB/op",
                  "pooled heap KiB/op", "stock zlib state/op",
                  "pooled zlib state/op", "stock faults/op",
                  "pooled faults/op", "pooled output bytes"], rows)


def write_markdown(path, args, codec, context, e2e, tuned, png_name):
    info = machine()
    out = []
    out.append("# pooled-gzip benchmarks\n")
    out.append("Generated by `scripts/run_benchmarks.sh` on %s%s." %
               (info["date"],
                " in %d s" % args.runtime_seconds
                if args.runtime_seconds else ""))
    out.append("")
    out.append(table(["machine", ""], [
        ["nproc", info["nproc"]], ["CPU", info["cpu"]],
        ["kernel", info["kernel"]],
        ["load average at start (1, 5, 15 min)",
         args.load_at_start or "n/a"],
        ["gRPC core", context.get("grpc_version", "n/a")],
        ["zlib", context.get("zlib_version", "n/a")],
        ["Google Benchmark library build",
         context.get("library_build_type", "n/a") +
         " (Debian's package; only the harness, not the measured code)"],
        ["e2e payload", e2e.get("payload", "n/a")],
        ["e2e repetitions", "%d x %d ms per mode per cell, interleaved" %
         (e2e.get("reps", 0), e2e.get("budget_ms", 0))],
        ["malloc", e2e.get("heap", "n/a")]]))
    out.append("")
    out.append("Three modes run in one process, interleaved over the "
               "repetitions (the mode that goes first rotates): **none** (no "
               "compression), **stock** (gRPC core gzip on both sides), "
               "**pooled** (`pooled_gzip::CreateChannel` and "
               "`EnableOnServer`, same gzip settings). A *message* in the "
               "end-to-end tables is one round trip: a request and its echo, "
               "each compressed once and decompressed once. CPU time is the "
               "whole process (client and server) from `getrusage`. Ratios "
               "taken within one run are what to read; absolute numbers move "
               "with the load on this shared machine.")
    out.append("")
    if png_name:
        out.append("![benchmarks](%s)\n" % png_name)

    out.append("## Targets (issue 4)\n")
    out.append(table(["target", "scope", "measured", "verdict"],
                     target_rows(e2e, codec)))
    out.append("")

    out.append("## End to end: latency per round trip\n")
    out.append(PAIRED_NOTE)
    out.append(e2e_latency_table(e2e))
    out.append("")
    out.append("## End to end: throughput, CPU and memory\n")
    out.append("Faults are minor page faults of the whole process per round "
               "trip: stock's cost for small messages is mostly glibc "
               "trimming the 256 KiB of zlib state it just freed and faulting "
               "it back in for the next message. Peak RSS is the largest "
               "resident set sampled while that mode ran; it is one process, "
               "so memory that an earlier mode left in malloc's free lists "
               "counts for all.\n")
    out.append(e2e_cost_table(e2e))
    out.append("")
    out.append("## End to end: zlib state and heap allocations per round "
               "trip\n")
    out.append("zlib state is what malloc handed out inside `deflateInit2_` "
               "(deflate) or `inflateInit2_`/`inflate` (inflate), counted by "
               "the benchmark's malloc interposer, as allocations / KiB per "
               "round trip. The pooled mode still inflates received messages "
               "in gRPC core, which has no hook for it. Pool counters are "
               "contexts created / reused during the measured runs.\n")
    out.append(e2e_alloc_table(e2e))
    out.append("")
    out.append("Pool at the end of the run: `%s`\n" % e2e["pool_stats"]["text"])

    if tuned:
        out.append("## End to end with glibc's trim threshold raised\n")
        out.append("The same benchmark in a second process with `%s`, a "
                   "common malloc tuning for servers: glibc then keeps freed "
                   "memory instead of returning it, stock no longer faults "
                   "its zlib state back in, and this is what pooling saves "
                   "over a tuned deployment. (glibc also raises its trim "
                   "threshold by itself after the first large block is "
                   "freed, so a process that has handled one message over "
                   "128 KiB behaves more like this table.)\n" %
                   tuned.get("heap"))
        out.append(e2e_latency_table(tuned))
        out.append("")

    out.append("## Codec micro-benchmarks\n")
    out.append("One message through gRPC core's zlib path (fresh stream per "
               "message, 1 KiB output slices; a replica of "
               "`message_compress.cc`) and through the pooled codec, called "
               "as the plugin calls it. Median of repetitions in random "
               "order; each size in its own process, because malloc's "
               "trimming (and so stock's time for small messages) depends on "
               "what the heap held before. zlib state is allocations / KiB "
               "per op; faults are the benchmark thread's minor page faults "
               "per op. ± is the coefficient of variation across repetitions.\n")
    out.append(codec_table(codec))
    out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


# --- Chart ----------------------------------------------------------------


def write_chart(path, e2e, codec):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("report.py: gnuplot not found, no chart", file=sys.stderr)
        return False
    with tempfile.TemporaryDirectory() as tmp:
        # Panel data: one line per size, columns per mode.
        def e2e_data(name, rpc, threads, key):
            lines = []
            for c in cell_order(e2e["cells"]):
                if c[0] != rpc or c[1] != threads:
                    continue
                m = e2e["cells"][c]
                lines.append('"%s" %s' % (size_label(c[2]), " ".join(
                    str(m[mode][key]) if mode in m else "NaN"
                    for mode in MODES)))
            with open(os.path.join(tmp, name), "w") as f:
                f.write("\n".join(lines) + "\n")
            return bool(lines)

        has_bidi = e2e_data("p50.dat", "bidi", 1, "p50_us")
        e2e_data("cpu.dat", "bidi", 1, "cpu_us_per_msg")
        lines = []
        for size in sorted({k[2] for k in codec}):
            s = codec.get(("compress", "text", size, "stock"))
            p = codec.get(("compress", "text", size, "pooled"))
            if s and p:
                lines.append('"%s" %s %s' % (size_label(size), s["real_time"],
                                             p["real_time"]))

        def decades(name):
            """A log y range with room on both sides of the data,
            so no bar touches the frame."""
            values = []
            with open(os.path.join(tmp, name)) as f:
                for line in f:
                    for field in line.rsplit('"', 1)[-1].split():
                        if field != "NaN" and float(field) > 0:
                            values.append(float(field))
            if not values:
                return "[*:*]"
            lo = 10 ** math.floor(math.log10(min(values)))
            hi = 10 ** math.ceil(math.log10(max(values) * 3))
            return "[%g:%g]" % (lo, hi)

        with open(os.path.join(tmp, "codec.dat"), "w") as f:
            f.write("\n".join(lines) + "\n")
        if not has_bidi or not lines:
            print("report.py: not enough data for a chart", file=sys.stderr)
            return False
        ranges = {name: decades(name)
                  for name in ("p50.dat", "cpu.dat", "codec.dat")}
        script = """
set terminal pngcairo enhanced size 1500,480 font "sans,10"
set output "{out}"
set multiplot layout 1,3 title "pooled-gzip: none vs stock gRPC gzip vs pooled gzip"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set format y "10^{{%L}}"
set grid ytics
set key top left
set xlabel "message size"
set title "End to end p50 per round trip (bidi, 1 client thread)"
set ylabel "microseconds (log)"
set yrange {r_p50}
plot "{tmp}/p50.dat" using 2:xtic(1) title "none" lc rgb "#999999", \\
     "" using 3 title "stock gzip" lc rgb "#d62728", \\
     "" using 4 title "pooled gzip" lc rgb "#2ca02c"
set title "End to end CPU per round trip (bidi, 1 client thread)"
set ylabel "CPU microseconds, client + server (log)"
set yrange {r_cpu}
plot "{tmp}/cpu.dat" using 2:xtic(1) title "none" lc rgb "#999999", \\
     "" using 3 title "stock gzip" lc rgb "#d62728", \\
     "" using 4 title "pooled gzip" lc rgb "#2ca02c"
set title "Codec: gzip one text message"
set ylabel "microseconds per message (log)"
set yrange {r_codec}
plot "{tmp}/codec.dat" using 2:xtic(1) title "stock (core)" lc rgb "#d62728", \\
     "" using 3 title "pooled" lc rgb "#2ca02c"
unset multiplot
""".format(out=path, tmp=tmp, r_p50=ranges["p50.dat"],
           r_cpu=ranges["cpu.dat"], r_codec=ranges["codec.dat"])
        result = subprocess.run([gnuplot], input=script, text=True,
                                capture_output=True)
        if result.returncode != 0:
            print("report.py: gnuplot failed:\n" + result.stderr,
                  file=sys.stderr)
            return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--codec", nargs="+", required=True)
    parser.add_argument("--e2e", required=True)
    parser.add_argument("--e2e-tuned")
    parser.add_argument("--md", required=True)
    parser.add_argument("--png")
    parser.add_argument("--runtime-seconds", type=int, default=0)
    parser.add_argument("--load-at-start", default="",
                        help="/proc/loadavg's first three fields")
    args = parser.parse_args()

    codec, context = load_codec(args.codec)
    e2e = load_e2e(args.e2e)
    tuned = load_e2e(args.e2e_tuned)
    png_name = None
    if args.png and write_chart(args.png, e2e, codec):
        png_name = os.path.relpath(args.png, os.path.dirname(
            os.path.abspath(args.md)))
    write_markdown(args.md, args, codec, context, e2e, tuned, png_name)
    for target, scope, measured, verdict in target_rows(e2e, codec):
        print("%s\n    %s: %s" % (target, verdict.replace("**", ""), measured))
    return 0


if __name__ == "__main__":
    sys.exit(main())
