#!/usr/bin/env python3
"""Writes results/links.md and results/links.png, "When compression pays",
from one e2e_bench JSON per link (e2e_bench --link, run by
scripts/run_benchmarks.sh): for each link, payload and size, the round trip
and throughput of no compression, stock gzip and the pooled setups, the
winner of each cell, what to turn on where, and a chart of every setup's
time relative to no compression, on which 1.0 is the break-even.

Standard library only; the chart is drawn by gnuplot (Debian: gnuplot-nox).

  links_report.py --e2e loopback.json 1gbit.json ... --md out.md
                  --conditions step.json [--png out.png]
"""

import argparse
import os
import sys
import tempfile

import conditions
from report import (fmt_us, fmt_x, load_e2e, machine, paired, run_gnuplot,
                    size_label, table)

KIND_NAMES = {"proto": "records", "text": "text", "random": "random bytes"}
# Within this of the fastest, a setup ties with it: the shaping and a shared
# machine move single cells by a few percent.
TIE = 1.05
# The headline cell: where a bulk service would first turn compression on.
HEADLINE_LINK_BITS = 100 * 1000 * 1000
HEADLINE_KIND, HEADLINE_SIZE = "proto", 1 << 20


def link_label(doc):
    if not doc.get("link_shaped"):
        return "loopback" if doc.get("link") == "loopback" else (
            "%s (not shaped)" % doc.get("link"))
    bits = doc["link_rate_bits_per_s"]
    if bits % 10**9 == 0:
        return "%d Gbit/s" % (bits // 10**9)
    if bits % 10**6 == 0:
        return "%d Mbit/s" % (bits // 10**6)
    return "%d kbit/s" % (bits // 1000)


def setup_label(doc, name):
    if name == "none":
        return "none"
    if name == "stock":
        return "stock gzip"
    label = "pooled " + name.replace("isal", "ISA-L").replace(
        "+skip", " + skip_incompressible")
    return label + " (default)" if name == doc.get("default_setup") else label


def cells_of(doc):
    """(kind, size) of the single-stream cells, kinds in run order."""
    kinds = []
    for r in doc["rows"]:
        if r["threads"] == 1 and r["kind"] not in kinds:
            kinds.append(r["kind"])
    keys = sorted({(c[2], c[3]) for c in doc["cells"] if c[1] == 1},
                  key=lambda k: (kinds.index(k[0]), k[1]))
    return keys


def cell(doc, kind, size):
    for key, value in doc["cells"].items():
        if key[1] == 1 and key[2] == kind and key[3] == size:
            return value
    return {}


def vs_none(doc, kind, size, setup):
    """setup's round trip / none's, paired within repetitions."""
    return paired(cell(doc, kind, size), setup, "none")


def winner(doc, kind, size):
    """The fastest setup by median round trip, and those within TIE of it.

    A tie goes to the simplest: no compression (compressing for a gain
    inside the noise is not worth recommending), then the library's
    default, then the fastest of the rest.
    """
    c = cell(doc, kind, size)
    times = {s: r["p50_us"] for s, r in c.items() if r.get("p50_us")}
    if not times:
        return None, []
    fastest = min(times.values())
    within = [s for s in doc["setups"]
              if s in times and times[s] <= fastest * TIE]
    default = doc.get("default_setup")
    best = ("none" if "none" in within else default if default in within
            else min(within, key=times.get))
    return best, [s for s in within if s != best]


def throughput(row, size):
    """Payload echoed per second, each way, in MB/s."""
    return row["msgs_per_s"] * size / 1e6 if row.get("msgs_per_s") else None


def link_table(doc):
    setups = doc["setups"]
    header = ["payload", "size"] + [setup_label(doc, s) for s in setups] + [
        "winner", "default / none", "stock / default"]
    rows = []
    default = doc.get("default_setup")
    for kind, size in cells_of(doc):
        c = cell(doc, kind, size)
        row = [KIND_NAMES.get(kind, kind), size_label(size)]
        for s in setups:
            r = c.get(s)
            if not r:
                row.append("n/a")
                continue
            mbs = throughput(r, size)
            row.append("%s, %s MB/s, %d B" % (
                fmt_us(r["p50_us"]), "%.3g" % mbs if mbs else "n/a",
                r["wire_bytes"]))
        best, ties = winner(doc, kind, size)
        row.append(("**%s**" % setup_label(doc, best) if best else "n/a") +
                   (" (tie: %s)" % ", ".join(setup_label(doc, t)
                                               for t in ties)
                    if ties else ""))
        row.append(fmt_x(vs_none(doc, kind, size, default)))
        row.append(fmt_x(paired(c, "stock", default)))
        rows.append(row)
    return table(header, rows)


def winners_table(docs):
    """One row per payload and size, one column per link."""
    keys = cells_of(docs[0])
    header = ["payload", "size"] + [link_label(d) for d in docs]
    rows = []
    for kind, size in keys:
        row = [KIND_NAMES.get(kind, kind), size_label(size)]
        for d in docs:
            best, ties = winner(d, kind, size)
            if not best:
                row.append("n/a")
                continue
            text = setup_label(d, best)
            if best != "none":
                text += ", %s of none" % fmt_x(vs_none(d, kind, size, best))
            if ties:
                text += " (tie: %s)" % ", ".join(setup_label(d, t)
                                                 for t in ties)
            row.append(text)
        rows.append(row)
    return table(header, rows)


def pays(doc, kind, size):
    """The pooled setup to name where compression beats none by more than
    TIE: the library's default if it is within TIE of the fastest pooled
    one, else that one."""
    ratios = {}
    for s in doc["setups"]:
        if s not in ("none", "stock"):
            r = vs_none(doc, kind, size, s)
            if r:
                ratios[s] = r
    if not ratios:
        return None
    best = min(ratios, key=ratios.get)
    default = doc.get("default_setup")
    if default in ratios and ratios[default] <= ratios[best] * TIE:
        best = default
    return (best, ratios[best]) if ratios[best] * TIE < 1 else None


def recommendation(docs):
    out = []
    for d in docs:
        paying = []
        for kind, size in cells_of(d):
            if kind == "random":
                continue
            p = pays(d, kind, size)
            if p:
                paying.append("%s %s: %s (%s the time of none)" % (
                    KIND_NAMES.get(kind, kind), size_label(size),
                    setup_label(d, p[0]), fmt_x(p[1])))
        if paying:
            out.append("- **%s**: compression pays for %s." %
                       (link_label(d), "; ".join(paying)))
        else:
            out.append("- **%s**: no compression is as fast or faster in "
                       "every cell; compress here only to save bytes "
                       "(egress cost)." % link_label(d))
    default = docs[0].get("default_setup")
    skip = next((s for s in docs[0]["setups"] if s.endswith("+skip")), None)
    costs = []
    for d in docs:
        plain = vs_none(d, "random", 1 << 20, default)
        skipped = vs_none(d, "random", 1 << 20, skip) if skip else None
        if plain:
            costs.append("%s: %s%s" % (
                link_label(d), fmt_x(plain),
                ", %s with skip_incompressible" % fmt_x(skipped)
                if skipped else ""))
    out.append(
        "- **Already-compressed data** (random bytes) never shrinks: gzip "
        "only adds its CPU time, and stock gRPC sends the message plain "
        "after paying it. `skip_incompressible` (docs/reference.md, "
        "\"Skipping what does not compress\") sends such messages plain "
        "after a sampled test of under a microsecond, and costs realistic "
        "payloads nothing "
        "measurable. Pooled default at 1 MiB, time of no compression: %s." %
        ("; ".join(costs) or "n/a"))
    return out


def streams_cell(doc):
    """(threads, kind, size) and setups of the throughput cell, if any."""
    for key, value in doc["cells"].items():
        if key[1] > 1:
            return key[1:], value
    return None, {}


def time_of_none(c, setup, streams):
    """setup's time relative to none's: the round trip of one stream, or,
    with streams at once, none's throughput / setup's (the time to move the
    same payload), paired within repetitions."""
    if streams:
        return paired(c, "none", setup, "rep_msgs_per_s")
    return paired(c, setup, "none")


def times_of_stock(c, setup, streams):
    """How many times faster setup is than stock gzip."""
    if streams:
        return paired(c, setup, "stock", "rep_msgs_per_s")
    return paired(c, "stock", setup)


def headline(docs):
    for d in docs:
        if d.get("link_shaped") and \
                d.get("link_rate_bits_per_s") == HEADLINE_LINK_BITS:
            default = d.get("default_setup")
            lines = []
            key, streams_c = streams_cell(d)
            measures = [("one message at a time, round trip",
                         cell(d, HEADLINE_KIND, HEADLINE_SIZE), False)]
            if key and key[1:] == (HEADLINE_KIND, HEADLINE_SIZE):
                measures.append(("%d streams at once, throughput" % key[0],
                                 streams_c, True))
            for name, c, streams in measures:
                lines.append(
                    "- %s: pooled %s takes %s the time of no compression, "
                    "stock gzip %s; the default is %s faster than stock." % (
                        name, default, fmt_x(time_of_none(c, default, streams)),
                        fmt_x(time_of_none(c, "stock", streams)),
                        fmt_x(times_of_stock(c, default, streams))))
            return "On 100 Mbit/s, 1 MiB records:\n\n" + "\n".join(lines)
    return "No shaped 100 Mbit/s run."


def throughput_table(docs):
    """Per link, the throughput cell: payload echoed per second, each way,
    of every setup, its time relative to no compression, and stock's."""
    setups = docs[0]["setups"]
    header = ["link", "cell", "none"] + [
        setup_label(docs[0], s) for s in setups if s != "none"] + [
        "stock / default"]
    rows = []
    for d in docs:
        key, c = streams_cell(d)
        if not key:
            continue
        threads, kind, size = key
        row = [link_label(d), "%d x %s %s" % (
            threads, KIND_NAMES.get(kind, kind), size_label(size))]
        for s in setups:
            mbs = throughput(c[s], size) if s in c else None
            text = "%.3g MB/s" % mbs if mbs else "n/a"
            if s != "none":
                text += ", %s" % fmt_x(time_of_none(c, s, True))
            row.append(text)
        row.append(fmt_x(times_of_stock(c, d.get("default_setup"), True)))
        rows.append(row)
    return table(header, rows) if rows else None


def summary_table(docs):
    """Per link and size: records' round trip relative to no compression
    for each setup, stock against the pooled ones, and text's; the table
    the README quotes, condensed, and docs/benchmarks.md in full."""
    header = ["link", "size", "none", "pooled default", "pooled ISA-L-1",
              "stock gzip", "stock / default", "stock / ISA-L-1",
              "text, default", "text, ISA-L-1"]
    rows = []
    for d in docs:
        default = d.get("default_setup")
        for kind, size in cells_of(d):
            if kind != HEADLINE_KIND:
                continue
            c = cell(d, kind, size)
            text = cell(d, "text", size)
            none = c.get("none", {}).get("p50_us")
            rows.append([
                link_label(d), size_label(size), fmt_us(none),
                fmt_x(paired(c, default, "none")),
                fmt_x(paired(c, "isal-1", "none")),
                fmt_x(paired(c, "stock", "none")),
                fmt_x(paired(c, "stock", default)),
                fmt_x(paired(c, "stock", "isal-1")),
                fmt_x(paired(text, default, "none")),
                fmt_x(paired(text, "isal-1", "none"))])
    return table(header, rows)


def write_markdown(path, args, docs, png_name):
    info = machine()
    out = ["# When compression pays\n"]
    out.append(
        "Generated by `scripts/run_benchmarks.sh%s` on %s, %d CPUs (%s), "
        "kernel %s." % (
            " --quick" if args.quick else " --links", info["date"],
            info["nproc"], info["cpu"], info["kernel"]))
    out.append(conditions.describe(conditions.load(args.conditions)))
    out.append("")
    out.append(
        "The echo round trip on a bidi stream, client and server in "
        "processes of their own, one `e2e_bench` run per link with every "
        "setup interleaved within it. Each cell gives the median round trip, "
        "the payload echoed per second (each way) and the bytes one message "
        "takes on the wire. Ratios are medians of the ratios within a "
        "repetition. The links:")
    out.append("")
    for d in docs:
        out.append("- %s: %s; %d repetitions x %d ms per setup." % (
            link_label(d), d.get("link_description", "n/a"), d["reps"],
            d["budget_ms"]))
    out.append("")
    out.append(headline(docs))
    out.append("")
    if png_name:
        out.append("![Time relative to no compression](%s)" % png_name)
        out.append("")
    out.append("## Summary\n")
    out.append("Records' round trip relative to no compression (below "
               "1.00x, compression pays), how much faster the pooled "
               "setups are than stock gzip, and the same ratio for text.\n")
    out.append(summary_table(docs))
    out.append("")
    streams = throughput_table(docs)
    if streams:
        out.append("## Throughput, several streams at once\n")
        out.append(
            "A bulk transfer keeps several messages in flight: one "
            "message's compression overlaps others' time on the wire, so "
            "the link, not the codec, sets the pace wherever the CPUs keep "
            "up. Each cell runs that many bidi streams echoing at once, "
            "both processes on this machine's CPUs, and gives the payload "
            "echoed per second (each way) and the time to move it relative "
            "to no compression.\n")
        out.append(streams)
        out.append("")
    out.append("## What to turn on\n")
    out.extend(recommendation(docs))
    out.append("")
    out.append("## Winner of each cell\n")
    out.append("The fastest median round trip; a setup within %d%% of it "
               "ties, and a tie goes to no compression, then the library's "
               "default.\n" % round((TIE - 1) * 100))
    out.append(winners_table(docs))
    out.append("")
    for d in docs:
        out.append("## %s\n" % link_label(d))
        out.append(link_table(d))
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def write_chart(path, docs):
    colors = {"stock": "#d62728", "none": "#999999"}
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"]
    setups = [s for s in docs[0]["setups"] if s != "none"]
    keys = cells_of(docs[0])
    kinds = [k for k in KIND_NAMES if any(c[0] == k for c in keys)]
    sizes = sorted({c[1] for c in keys})
    # Slowest link left: the break-even moves right as the link gets faster.
    order = sorted(docs, key=lambda d: d.get("link_rate_bits_per_s") or
                   float("inf"))
    with tempfile.TemporaryDirectory() as tmp:
        plots = []
        for kind in kinds:
            for size in sizes:
                name = "%s_%d.dat" % (kind, size)
                with open(os.path.join(tmp, name), "w") as f:
                    for i, d in enumerate(order):
                        f.write('%d "%s" %s\n' % (i, link_label(d), " ".join(
                            "%g" % (vs_none(d, kind, size, s) or float("nan"))
                            for s in setups)))
                series = ", ".join(
                    '"%s" using 1:%d:xtic(2) with linespoints lw 2 pt 7 '
                    'lc rgb "%s" title "%s"' % (
                        os.path.join(tmp, name), i + 3,
                        colors.get(s, palette[i % len(palette)]),
                        setup_label(docs[0], s))
                    for i, s in enumerate(setups))
                plots.append(
                    'set title "%s, %s"\nplot 1 with lines dt 2 lw 2 lc rgb '
                    '"#555555" title "no compression (break-even)", %s' % (
                        KIND_NAMES[kind], size_label(size), series))
        script = """
set terminal pngcairo noenhanced size 1500,1200 font "sans,10"
set output "{out}"
set multiplot layout {rows},{cols} title "Round trip relative to no compression (below 1: compression pays), echo over a bidi stream, per link"
set logscale y
set yrange [0.1:*]
set ytics (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200)
set grid ytics
set xrange [-0.3:{xmax}]
set key top left Left reverse font ",8"
set ylabel "time / no compression (log)"
{plots}
unset multiplot
""".format(out=path, rows=len(kinds), cols=len(sizes),
           xmax=len(order) - 0.7, plots="\n".join(plots))
        return run_gnuplot(script, "links_report.py")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--e2e", nargs="+", required=True,
                        help="e2e_bench JSON, one per link")
    parser.add_argument("--md", required=True)
    parser.add_argument("--png")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--conditions", required=True,
                        help="the step's JSON from scripts/machine_load.sh")
    args = parser.parse_args()
    docs = [load_e2e(p) for p in args.e2e]
    png_name = None
    if args.png and write_chart(args.png, docs):
        png_name = os.path.relpath(args.png, os.path.dirname(
            os.path.abspath(args.md)))
    write_markdown(args.md, args, docs, png_name)


if __name__ == "__main__":
    main()
