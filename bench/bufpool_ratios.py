#!/usr/bin/env python3
"""The output buffer pool experiment's figures from e2e_bench JSON runs
whose setups come in pairs <setup>+pool0 / <setup>+pool1 (interleaved by
e2e_bench within each run): per cell, medians over all repetitions of the
absolute figures, and medians of the per-repetition paired ratios
(p50: off / on, msgs/s: on / off; above 1 means the pool wins).

  bench/bufpool_ratios.py RUN.json...
"""
import json
import statistics
import sys


def main(paths):
    cells = {}
    for path in paths:
        with open(path) as f:
            for row in json.load(f)["rows"]:
                key = (row["threads"], row["size"])
                cells.setdefault(key, {}).setdefault(row["setup"], []).append(
                    row)
    med = statistics.median
    print("| cell | setup | p50 us off | on | p50 off/on (min-max) | "
          "msgs/s off | on | msgs/s on/off (min-max) | vs stock off | on | "
          "server cpu us/msg off | on | server faults/msg off | on |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
          "---:|")
    for (threads, size), setups in sorted(cells.items()):
        stock_rate = [x for r in setups.get("stock", [])
                      for x in r["rep_msgs_per_s"]]
        stock_med = med(stock_rate) if stock_rate else float("nan")
        for name in sorted(setups):
            if not name.endswith("+pool0"):
                continue
            base = name[:-len("+pool0")]
            off_rows, on_rows = setups[name], setups.get(base + "+pool1", [])
            p50_off, p50_on, rate_off, rate_on = [], [], [], []
            for off, on in zip(off_rows, on_rows):
                p50_off += off["rep_p50_us"]
                p50_on += on["rep_p50_us"]
                rate_off += off["rep_msgs_per_s"]
                rate_on += on["rep_msgs_per_s"]
            speed = [a / b for a, b in zip(p50_off, p50_on)]
            rate = [b / a for a, b in zip(rate_off, rate_on)]

            def field(key):
                return (med([r[key] for r in off_rows]),
                        med([r[key] for r in on_rows]))
            cpu_off, cpu_on = field("server_cpu_us_per_msg")
            flt_off, flt_on = field("server_faults_per_msg")
            cell = f"{size // 1024} KiB, {threads} stream" + (
                "s" if threads > 1 else "")
            print(f"| {cell} | {base} | {med(p50_off):.0f} | "
                  f"{med(p50_on):.0f} | {med(speed):.3f}x "
                  f"({min(speed):.2f}-{max(speed):.2f}) | "
                  f"{med(rate_off):.0f} | {med(rate_on):.0f} | "
                  f"{med(rate):.3f}x ({min(rate):.2f}-{max(rate):.2f}) | "
                  f"{med(rate_off) / stock_med:.2f}x | "
                  f"{med(rate_on) / stock_med:.2f}x | {cpu_off:.0f} | "
                  f"{cpu_on:.0f} | {flt_off:.1f} | {flt_on:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
