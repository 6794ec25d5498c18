#!/usr/bin/env python3
"""Medians over the pairs of scripts/bufpool_experiment.sh: absolute p50,
msgs/s and server CPU per message, off and on, and the paired ratios
(speedup: off p50 / on p50, on msgs/s / off msgs/s)."""
import glob
import json
import os
import statistics
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = data["rows"] if isinstance(data, dict) else data
    return {(r["threads"], r["size"], r["setup"]): r for r in rows}


def main(out):
    pairs = []
    for off in sorted(glob.glob(os.path.join(out, "pool0_*.json"))):
        on = off.replace("pool0_", "pool1_")
        if os.path.exists(on):
            pairs.append((load(off), load(on)))
    keys = sorted(pairs[0][0], key=lambda k: (k[0], k[1], k[2]))
    med = statistics.median
    print(f"{len(pairs)} pairs\n")
    print("| cell | setup | p50 us off | p50 us on | p50 speedup on/off "
          "(paired median, min-max) | msgs/s off | msgs/s on | "
          "msgs/s on/off (paired median, min-max) | server cpu us/msg off "
          "| on | server faults/msg off | on |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in keys:
        threads, size, setup = key
        p50_off = [p[0][key]["p50_us"] for p in pairs]
        p50_on = [p[1][key]["p50_us"] for p in pairs]
        tput_off = [p[0][key]["msgs_per_s"] for p in pairs]
        tput_on = [p[1][key]["msgs_per_s"] for p in pairs]
        cpu_off = [p[0][key]["server_cpu_us_per_msg"] for p in pairs]
        cpu_on = [p[1][key]["server_cpu_us_per_msg"] for p in pairs]
        flt_off = [p[0][key]["server_faults_per_msg"] for p in pairs]
        flt_on = [p[1][key]["server_faults_per_msg"] for p in pairs]
        speed = [a / b for a, b in zip(p50_off, p50_on)]
        tput = [b / a for a, b in zip(tput_off, tput_on)]
        cell = f"{size // 1024} KiB, {threads} stream{'s' if threads > 1 else ''}"
        print(f"| {cell} | {setup} | {med(p50_off):.0f} | {med(p50_on):.0f} | "
              f"{med(speed):.3f}x ({min(speed):.2f}-{max(speed):.2f}) | "
              f"{med(tput_off):.0f} | {med(tput_on):.0f} | "
              f"{med(tput):.3f}x ({min(tput):.2f}-{max(tput):.2f}) | "
              f"{med(cpu_off):.0f} | {med(cpu_on):.0f} | "
              f"{med(flt_off):.1f} | {med(flt_on):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
