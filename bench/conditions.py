"""What the machine was doing while a benchmark step ran.

scripts/machine_load.sh writes one JSON file per step of
scripts/run_benchmarks.sh; every report opens with describe() of it, so a
reader sees how quiet the run was before any figure.

  python3 bench/conditions.py FILE   prints that sentence (for reports
                                     written by the shell script itself)
"""

import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def describe(cond):
    """Markdown: the load average at both ends, CPU time other work took,
    and, for a run the script was told to publish anyway, a warning."""
    wall_cpu = cond["wall_s"] * cond["cpus"]
    other_share = cond["other_cpu_s"] / wall_cpu if wall_cpu else 0.0
    text = (
        "Load average (1, 5, 15 min) %s at the start and %s at the end, on "
        "%d cores; each reading taken once the 1-minute load had fallen to "
        "at most half the cores, or after %d s. While it ran (%d s), other "
        "work took %.1f CPU-seconds (%.1f%% of the machine; this includes "
        "kernel time for loopback traffic that is not charged to a process) "
        "and the hypervisor stole %.1f." % (
            cond["load_start"], cond["load_end"], cond["cpus"],
            cond["settle_s"], cond["wall_s"], cond["other_cpu_s"],
            100 * other_share, cond["steal_s"]))
    if not cond["quiet"]:
        text = ("**Noisy run: the load average was above half the cores at "
                "the start or the end, and this report was published with "
                "`--noisy`. Its figures are not comparable with a quiet "
                "run's.** " + text)
    return text


if __name__ == "__main__":
    print(describe(load(sys.argv[1])))
