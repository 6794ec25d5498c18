"""Where an echo server's CPU goes per request, by shared object.

Starts e2e_bench's server and client roles (bench/e2e_peer.h), warms them,
then records the server alone with perf while the client keeps
--threads unary calls in flight, and prints the server's CPU per request
split by shared object, beside the codec's own clock for the same
messages (the server's traffic counters). Run it once per setup and
compare the columns: what a setup adds over "none" is the difference.

  python3 bench/profile_server.py --e2e_bench build/bench/e2e_bench \\
      --setup default --kind proto --size 1024 [--threads 32] [--ms 4000]
      [--record_only perf.data] [--wrap "chroot ROOT"] [--symfs ROOT]

--setup: none, stock, default (the library's default, not configured) or
BACKEND-LEVEL (pooled, configured). --wrap runs both processes through a
command, such as a chroot holding another gRPC (scripts/grpc183_stage.sh
builds e2e_bench there); --symfs tells perf where that root's libraries
are. Needs perf; figures are one run's, so compare runs made back to back.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile


def peer_flags(setup):
    if setup == "none":
        return ["--compression=none"]
    if setup == "stock":
        return ["--compression=stock"]
    if setup == "default":
        return ["--compression=pooled", "--backend=libdeflate", "--level=6",
                "--configure=false"]
    backend, level = setup.rsplit("-", 1)
    return ["--compression=pooled", "--backend=" + backend,
            "--level=" + level, "--configure=true"]


def stats(server):
    server.stdin.write("stats\n")
    server.stdin.flush()
    return {k: float(v) for k, v in
            re.findall(r"(\w+)=([-\d.e+]+)", server.stdout.readline())}


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def by_object(data, symfs):
    cmd = ["perf", "report", "-i", data, "--no-children", "-g", "none",
           "--sort", "dso"]
    if symfs:
        cmd.append("--symfs=" + symfs)
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return [(m.group(2), float(m.group(1))) for m in
            (re.match(r"\s+([\d.]+)%\s+(\S+)", line)
             for line in out.splitlines()) if m]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--e2e_bench", required=True)
    parser.add_argument("--setup", required=True)
    parser.add_argument("--client_setup", default="",
                        help="the client's setup (default: the library's "
                        "default sending gzip, or none for none)")
    parser.add_argument("--kind", default="proto")
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=32)
    parser.add_argument("--ms", type=int, default=4000)
    parser.add_argument("--wrap", default="")
    parser.add_argument("--symfs", default="")
    parser.add_argument("--record_only", default="",
                        help="keep perf's data in this file")
    args = parser.parse_args()

    wrap = shlex.split(args.wrap)
    client_setup = args.client_setup or (
        "none" if args.setup == "none" else "default")
    server = subprocess.Popen(
        wrap + [args.e2e_bench, "--role=server"] + peer_flags(args.setup),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = server.stdout.readline().split()[1]
    client = subprocess.Popen(
        wrap + [args.e2e_bench, "--role=client",
                "--target=127.0.0.1:" + port,
                "--max_threads=%d" % args.threads] + peer_flags(client_setup),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if not client.stdout.readline().startswith("ready"):
        sys.exit("profile_server: the client did not connect")

    def run(ms):
        client.stdin.write("run unary %d %s %d %d 3\n" %
                           (args.threads, args.kind, args.size, ms))
        client.stdin.flush()
        line = client.stdout.readline()
        errors = re.search(r"errors=(\d+)", line)
        if errors is None or int(errors.group(1)) != 0:
            sys.exit("profile_server: calls failed: " + line[:300])
        return line

    run(1000)
    data = args.record_only or tempfile.mktemp(suffix=".perf")
    perf = subprocess.Popen(
        ["perf", "record", "-q", "-F", "2000", "-o", data, "-p",
         str(server.pid)], stderr=subprocess.DEVNULL)
    before, cpu_before = stats(server), cpu_seconds(server.pid)
    run_line = run(args.ms)
    after, cpu_after = stats(server), cpu_seconds(server.pid)
    perf.send_signal(2)
    perf.wait()
    for process in (client, server):
        process.stdin.close()
        process.wait()

    measured = run_line
    requests = float(re.search(r"messages=(\d+)", measured).group(1))
    per = lambda key: (after[key] - before[key]) / requests
    cpu_us = (cpu_after - cpu_before) * 1e6
    unit = "us per request"
    print("%s, %s %d B, %d in flight: server CPU %.1f %s" %
          (args.setup, args.kind, args.size, args.threads,
           cpu_us / requests, unit))
    if after.get("compressed", 0) > before.get("compressed", 0):
        print("  codec clock (wall, preemption included): compress %.2f us, "
              "decompress %.2f us per message" %
              (per("compress_ns") / 1e3, per("decompress_ns") / 1e3))
        print("  heap: %.1f allocations per request; page faults %.2f" %
              (per("allocs"), per("faults")))
    for name, share in by_object(data, args.symfs)[:14]:
        print("  %8.2f  %s" % (share * cpu_us / 100 / requests, name))
    if not args.record_only:
        os.unlink(data)


if __name__ == "__main__":
    main()
