#!/usr/bin/env python3
"""The echo server's Prometheus metrics, scraped around gzip traffic.

Starts echo_server with --metrics_port=-1 (skipping on, zlib as the decoder)
and scrapes /metrics over HTTP before and after two unary gzip loads from
echo_client (8, then 16 requests), then after a load of 8 random payloads.
Each scrape follows the client's exit, so the server has finished every
message it counts. Checks that the message and byte counters moved by exactly
what the loads sent, that the random load's responses were skipped, every
one and no other, and that the scrape is Prometheus text format as the
Prometheus project's own parser (prometheus_client) reads it, with counters
and gauges typed and named by Prometheus conventions.

  echo_server_scrape_test.py --server build/examples/echo_server \
                             --client build/examples/echo_client
"""

import argparse
import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.request

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    NEEDS = ("needs prometheus_client (Debian: python3-prometheus-client;"
             " scripts/install_deps.sh --with-test-tools)")
    # In CI a missing client is a broken runner, not a test to leave out.
    if os.environ.get("CI"):
        print("FAIL: CI is set and the test %s" % NEEDS)
        sys.exit(1)
    print("SKIPPED: " + NEEDS)
    sys.exit(77)  # SKIP_RETURN_CODE in test/metrics/CMakeLists.txt

PAYLOAD_BYTES = 1024
# A serialized EchoRequest: payload (tag, 2-byte length, the bytes) and
# response_encoding "gzip" (tag, length, 4 bytes); the EchoResponse has the
# payload only.
REQUEST_BYTES = 1 + 2 + PAYLOAD_BYTES + 1 + 1 + len("gzip")
RESPONSE_BYTES = 1 + 2 + PAYLOAD_BYTES
# echo_client cycles through 8 distinct requests, so a load of 16 is exactly
# two loads of 8, compressed bytes included (compression is deterministic).
LOADS = (8, 16)
# Random bytes: every response judged incompressible and sent plain.
RANDOM_LOAD = 8

COUNTERS = {
    "pooled_gzip_messages_total",
    "pooled_gzip_input_bytes_total",
    "pooled_gzip_output_bytes_total",
    "pooled_gzip_compress_declined_total",
    "pooled_gzip_compress_failures_total",
    "pooled_gzip_decode_failures_total",
    "pooled_gzip_size_limit_refusals_total",
    "pooled_gzip_contexts_created_total",
    "pooled_gzip_contexts_reused_total",
    "pooled_gzip_contexts_destroyed_total",
    "pooled_gzip_contexts_discarded_total",
    "pooled_gzip_contexts_rejected_by_caps_total",
    "pooled_gzip_contexts_evicted_total",
    "pooled_gzip_codec_seconds_total",
    "pooled_gzip_saved_bytes_total",
    "pooled_gzip_compress_skipped_total",
    "pooled_gzip_compress_skipped_bytes_total",
    "pooled_gzip_process_cpu_seconds_total",
}
GAUGES = {
    "pooled_gzip_contexts_live",
    "pooled_gzip_contexts_pooled",
    "pooled_gzip_contexts_in_reserve",
    "pooled_gzip_pooled_bytes",
    "pooled_gzip_pooled_limit_bytes",
    "pooled_gzip_core_codec_active",
    "pooled_gzip_core_codec_served",
}
TIMEOUT_S = 60

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


class Lines:
    """Lines of a child's stdout, each awaited with a deadline."""

    def __init__(self, stream):
        self._fd = stream.fileno()
        self._buffer = b""

    def next(self):
        deadline = time.monotonic() + TIMEOUT_S
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                raise TimeoutError("no line from the server in %ds" % TIMEOUT_S)
            chunk = os.read(self._fd, 4096)
            if not chunk:
                raise EOFError("the server exited; it printed: %r" %
                               self._buffer)
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()


class Scrape:
    """One GET of /metrics: the raw text and the parsed pooled_gzip samples."""

    def __init__(self, url):
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            check(response.status == 200, "GET %s: %d" % (url, response.status))
            content_type = response.headers.get("Content-Type", "")
            check(content_type.startswith("text/plain"),
                  "Content-Type %r is not Prometheus text format" %
                  content_type)
            self.text = response.read().decode("utf-8")
        # The whole scrape must parse, prometheus-cpp's own series included.
        self.families = {
            family.name: family
            for family in text_string_to_metric_families(self.text)
        }
        self.samples = {}
        for family in self.families.values():
            for sample in family.samples:
                if sample.name.startswith("pooled_gzip_"):
                    key = (sample.name, frozenset(sample.labels.items()))
                    check(key not in self.samples,
                          "sample twice: %s %s" % key)
                    self.samples[key] = sample.value

    def sum(self, name, **labels):
        """The sum of `name`'s samples whose labels include `labels`."""
        check(any(n == name for n, _ in self.samples), "no series " + name)
        wanted = set(labels.items())
        return sum(value for (n, have), value in self.samples.items()
                   if n == name and wanted <= have)

    def pooled_gzip_lines(self):
        return [line for line in self.text.splitlines()
                if "pooled_gzip_" in line]


def check_format(scrape):
    """Types and names as Prometheus conventions want them."""
    types = dict(re.findall(r"^# TYPE (pooled_gzip_\w+) (\w+)$", scrape.text,
                            re.MULTILINE))
    check(set(types) == COUNTERS | GAUGES,
          "families: unexpected %s, missing %s" %
          (sorted(set(types) - COUNTERS - GAUGES),
           sorted((COUNTERS | GAUGES) - set(types))))
    for name, kind in types.items():
        want = "counter" if name in COUNTERS else "gauge"
        check(kind == want, "%s is a %s, not a %s" % (name, kind, want))
        check(name.endswith("_total") == (kind == "counter"),
              "%s: _total is for counters, and every counter" % name)
        check(re.search(r"^# HELP %s \S" % name, scrape.text, re.MULTILINE),
              "%s has no HELP" % name)
        # The parser names a counter's family without _total, its samples
        # with it.
        family = scrape.families.get(name[:-len("_total")]
                                     if kind == "counter" else name)
        check(family is not None and family.type == kind,
              "prometheus_client does not read %s as a %s" % (name, kind))
    sample_lines = [line for line in scrape.pooled_gzip_lines()
                    if not line.startswith("#")]
    check(len(sample_lines) == len(scrape.samples),
          "%d sample lines, %d parsed" %
          (len(sample_lines), len(scrape.samples)))
    for (name, labels), _ in scrape.samples.items():
        for label, value in labels:
            check(re.fullmatch(r"[a-z_]+", label) and
                  re.fullmatch(r"[a-z]+", value),
                  "%s: label %s=%r" % (name, label, value))


def check_load(before, after, n):
    """What n unary gzip round trips must add, on the server."""
    def delta(name, **labels):
        return after.sum(name, **labels) - before.sum(name, **labels)

    compress = {"direction": "compress", "algorithm": "gzip"}
    decompress = {"direction": "decompress", "algorithm": "gzip"}
    for labels, what in ((decompress, "requests"), (compress, "responses")):
        got = delta("pooled_gzip_messages_total", **labels)
        check(got == n, "%d %s: messages_total%s rose by %d" %
              (n, what, labels, got))
    got = delta("pooled_gzip_messages_total", backend="zlib", **decompress)
    check(got == n, "--decoder=zlib inflated %d of %d requests" % (got, n))
    got = delta("pooled_gzip_output_bytes_total", **decompress)
    check(got == n * REQUEST_BYTES,
          "inflated request bytes rose by %d, not %d x %d" %
          (got, n, REQUEST_BYTES))
    got = delta("pooled_gzip_input_bytes_total", **compress)
    check(got == n * RESPONSE_BYTES,
          "response bytes given to the compressor rose by %d, not %d x %d" %
          (got, n, RESPONSE_BYTES))
    # The compressed sides: smaller than the plain ones (words compress),
    # and the difference is what was saved.
    for labels, compressed_side, plain_bytes, what in (
            (decompress, "pooled_gzip_input_bytes_total", REQUEST_BYTES,
             "request"),
            (compress, "pooled_gzip_output_bytes_total", RESPONSE_BYTES,
             "response")):
        got = delta(compressed_side, **labels)
        check(0 < got < n * plain_bytes,
              "compressed %s bytes: %d" % (what, got))
        saved = delta("pooled_gzip_saved_bytes_total", **labels)
        check(saved == n * plain_bytes - got,
              "%ss saved %d bytes, not %d - %d" %
              (what, saved, n * plain_bytes, got))
    # Every message took codec time, in both directions, and the process's
    # CPU time moved too.
    for labels in (compress, decompress):
        got = delta("pooled_gzip_codec_seconds_total", **labels)
        check(got > 0, "codec_seconds_total%s rose by %g" % (labels, got))
    got = delta("pooled_gzip_process_cpu_seconds_total")
    check(got > 0, "process_cpu_seconds_total rose by %g" % got)
    for name in ("pooled_gzip_messages_total", "pooled_gzip_input_bytes_total",
                 "pooled_gzip_output_bytes_total",
                 "pooled_gzip_codec_seconds_total"):
        got = delta(name, algorithm="deflate")
        check(got == 0, "%s{algorithm=deflate} rose by %d" % (name, got))
    for name in ("pooled_gzip_compress_declined_total",
                 "pooled_gzip_compress_failures_total",
                 "pooled_gzip_decode_failures_total",
                 "pooled_gzip_size_limit_refusals_total",
                 "pooled_gzip_compress_skipped_total",
                 "pooled_gzip_compress_skipped_bytes_total",
                 "pooled_gzip_contexts_discarded_total"):
        got = delta(name)
        check(got == 0, "%s rose by %d" % (name, got))
    # One context checkout per message, from the pool of its direction.
    for pool in ("writer", "reader"):
        got = (delta("pooled_gzip_contexts_created_total", pool=pool) +
               delta("pooled_gzip_contexts_reused_total", pool=pool))
        check(got == n, "%s checkouts rose by %d, not %d" % (pool, got, n))


def check_at_rest(scrape, core_codec_active):
    check(scrape.sum("pooled_gzip_core_codec_active") == core_codec_active,
          "pooled_gzip_core_codec_active disagrees with the listening line")
    for direction in ("compress", "decompress"):
        served = scrape.sum("pooled_gzip_core_codec_served",
                            direction=direction)
        check(served == core_codec_active,
              "pooled_gzip_core_codec_served{direction=%s} is %d, active %d"
              % (direction, served, core_codec_active))
    for pool in ("writer", "reader"):
        live = scrape.sum("pooled_gzip_contexts_live", pool=pool)
        pooled = scrape.sum("pooled_gzip_contexts_pooled", pool=pool)
        created = scrape.sum("pooled_gzip_contexts_created_total", pool=pool)
        destroyed = scrape.sum("pooled_gzip_contexts_destroyed_total",
                               pool=pool)
        check(live == created - destroyed,
              "%s: live %d != created %d - destroyed %d" %
              (pool, live, created, destroyed))
        check(0 < pooled <= live, "%s: pooled %d, live %d" %
              (pool, pooled, live))
        check(scrape.sum("pooled_gzip_pooled_bytes", pool=pool) > 0,
              "%s: idle contexts but no pooled bytes" % pool)
    check(scrape.sum("pooled_gzip_pooled_bytes") <=
          scrape.sum("pooled_gzip_pooled_limit_bytes"),
          "pooled bytes over the cap")


def check_random_load(before, after, n, core_codec_active):
    """What n unary gzip round trips of random payloads must add, on the
    server: every response sent plain without compressing it, counted as
    skipped, not as compressed or declined (as it would be with skipping
    off: compressed, found not smaller)."""
    def delta(name, **labels):
        return after.sum(name, **labels) - before.sum(name, **labels)

    # Options::skip_incompressible acts on the core codec only.
    n_skipped = n if core_codec_active else 0
    got = delta("pooled_gzip_compress_skipped_total", algorithm="gzip")
    check(got == n_skipped, "%d random responses: compress_skipped_total rose"
          " by %d, not %d" % (n, got, n_skipped))
    got = delta("pooled_gzip_compress_skipped_bytes_total", algorithm="gzip")
    check(got == n_skipped * RESPONSE_BYTES,
          "compress_skipped_bytes_total rose by %d, not %d x %d" %
          (got, n_skipped, RESPONSE_BYTES))
    if core_codec_active:
        compressed = delta("pooled_gzip_messages_total", direction="compress")
        declined = delta("pooled_gzip_compress_declined_total")
        check(compressed == 0, "%d random responses compressed" % compressed)
        check(declined == 0, "%d random responses declined" % declined)
    for name in ("pooled_gzip_compress_skipped_total",
                 "pooled_gzip_compress_skipped_bytes_total"):
        got = delta(name, algorithm="deflate")
        check(got == 0, "%s{algorithm=deflate} rose by %d" % (name, got))


def run_client(client, target, count, payload="words"):
    result = subprocess.run(
        [client, "--target=" + target, "--mode=pooled", "--compression=gzip",
         "--rpc=unary", "--size=%d" % PAYLOAD_BYTES, "--count=%d" % count,
         "--payload=" + payload],
        capture_output=True, text=True, timeout=TIMEOUT_S)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        raise RuntimeError("echo_client exited with %d" % result.returncode)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--client", required=True)
    args = parser.parse_args()

    bad_flag = subprocess.run([args.server, "--metrics_port=-2"],
                              capture_output=True, timeout=TIMEOUT_S)
    check(bad_flag.returncode == 2,
          "--metrics_port=-2 exited with %d, not 2" % bad_flag.returncode)

    # Skipping on: the words payload must still be compressed, every
    # message (check_load). The decoder named: every request is inflated
    # by zlib whatever the default decoder.
    server = subprocess.Popen(
        [args.server, "--port=0", "--mode=pooled", "--compression=gzip",
         "--metrics_port=-1", "--skip_incompressible", "--decoder=zlib"],
        stdout=subprocess.PIPE)
    try:
        lines = Lines(server.stdout)
        # The readiness handshake: both lines are printed once serving.
        listening = lines.next()
        print(listening)
        match = re.fullmatch(
            r"listening on (127\.0\.0\.1:\d+) \(.*core codec (active|not "
            r"active)\)", listening)
        if not match:
            raise RuntimeError("unexpected first line: %r" % listening)
        target, core_codec_active = match.group(1), match.group(2) == "active"
        metrics = lines.next()
        print(metrics)
        match = re.fullmatch(r"metrics on (http://127\.0\.0\.1:\d+/metrics)",
                             metrics)
        if not match:
            raise RuntimeError("unexpected second line: %r" % metrics)
        url = match.group(1)

        scrapes = [Scrape(url)]
        # Before any message, the series of the backends in use are there
        # at zero, so that rate() starts from the first scrape: the
        # writer's, and for received messages the named decoder's.
        for direction, backend in (("compress", "libdeflate"),
                                   ("decompress", "zlib")):
            for algorithm in ("gzip", "deflate"):
                labels = frozenset({"direction": direction,
                                    "algorithm": algorithm,
                                    "backend": backend}.items())
                check(scrapes[0].samples.get(
                          ("pooled_gzip_messages_total", labels)) == 0,
                      "no zero %s %s series for %s before traffic" %
                      (direction, algorithm, backend))
        for count in LOADS:
            run_client(args.client, target, count)
            scrapes.append(Scrape(url))
        run_client(args.client, target, RANDOM_LOAD, payload="random")
        random_scrape = Scrape(url)
        for scrape in scrapes + [random_scrape]:
            check_format(scrape)
        for before, after, count in zip(scrapes, scrapes[1:], LOADS):
            check_load(before, after, count)
        check_random_load(scrapes[-1], random_scrape, RANDOM_LOAD,
                          core_codec_active)
        check_at_rest(random_scrape, 1 if core_codec_active else 0)
        # Same requests, twice as many: the compressed bytes double exactly.
        for name, direction in (("pooled_gzip_input_bytes_total",
                                 "decompress"),
                                ("pooled_gzip_output_bytes_total",
                                 "compress")):
            first, second = (
                after.sum(name, direction=direction, algorithm="gzip") -
                before.sum(name, direction=direction, algorithm="gzip")
                for before, after in zip(scrapes, scrapes[1:]))
            check(second == 2 * first,
                  "%s{direction=%s}: %d for %d messages, %d for %d" %
                  (name, direction, first, LOADS[0], second, LOADS[1]))

        print("\nLast scrape, pooled_gzip series:")
        print("\n".join(random_scrape.pooled_gzip_lines()))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            status = server.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            server.kill()
            status = server.wait()
        check(status == 0, "echo_server exited with %d" % status)

    if failures:
        print("\n%d checks failed" % len(failures))
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
