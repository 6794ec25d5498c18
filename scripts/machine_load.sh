# Sourced by scripts/run_benchmarks.sh: whether the machine is quiet enough
# for figures to be published, and what other work took while they ran.
#
# The bound is the load average: at most half the cores, at the start and at
# the end of each step. A benchmark's own processes raise the 1-minute load
# too; that share halves every 42 s once they exit, so each reading first
# waits up to SETTLE_SECONDS (default 180) for the load to fall to the
# bound. Load that is still above it after that wait is other work's.
#
# While a step runs, /proc/stat's busy time minus this script's own CPU (its
# waited-for children included) is the CPU time other work took, and the
# steal column is what the hypervisor gave to other guests.
#
# A step during which other work took more than a sixth of the machine's
# CPU time is busy too, whatever the load average said at its ends: that
# catches work that came and went while the step ran.
#
# LOADAVG_FILE (default /proc/loadavg) and CPUS (default nproc) let the
# smoke test play a busy machine of a known size.

loadavg_file="${LOADAVG_FILE:-/proc/loadavg}"
settle_seconds="${SETTLE_SECONDS:-180}"
cpus="${CPUS:-$(nproc)}"
max_other_share=6  # other work above 1/6 of wall time x cores is busy

# The 1, 5 and 15-minute load averages.
load_averages() { cut -d' ' -f1-3 "$loadavg_file"; }

# Succeeds when the 1-minute load is at most half the cores.
load_is_quiet() {
  awk -v cpus="$cpus" '{ exit !($1 <= cpus / 2) }' "$loadavg_file"
}

# Waits up to settle_seconds for the load to fall to the bound; succeeds if
# it did.
settle_load() {
  local waited=0
  until load_is_quiet; do
    if ((waited >= settle_seconds)); then return 1; fi
    sleep 5
    waited=$((waited + 5))
  done
}

# "BUSY STEAL OWN" in clock ticks: the machine's busy time (user, nice,
# system, irq, softirq, steal), its steal time, and this shell's own CPU
# time with its waited-for children.
cpu_ticks() {
  local machine own
  machine="$(awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9, $9 }' /proc/stat)"
  # Fields after the command name (which may hold spaces): utime is the
  # 12th, stime, cutime and cstime follow.
  own="$(sed 's/^.*) //' "/proc/$$/stat" | awk '{ print $12 + $13 + $14 + $15 }')"
  echo "$machine $own"
}

# step_begin: waits for quiet (or, with noisy runs allowed, notes that it
# was not) and starts counting CPU time. Fails when the machine is busy and
# noisy runs are not allowed.
step_begin() {
  step_quiet=true
  settle_load || step_quiet=false
  step_load_start="$(load_averages)"
  step_ticks_start="$(cpu_ticks)"
  step_time_start=$(date +%s)
  if ! $step_quiet && ! $allow_noisy; then
    busy_refusal "at the start" "$step_load_start"
    return 1
  fi
}

# step_end FILE: waits for the step's own load to decay, then writes what
# the machine did during the step to FILE (JSON, read by bench/conditions.py).
# Fails when the machine was busy and noisy runs are not allowed.
step_end() {
  local ticks_end wall hz
  ticks_end="$(cpu_ticks)"
  wall=$(($(date +%s) - step_time_start))
  settle_load || step_quiet=false
  hz="$(getconf CLK_TCK)"
  read -r busy0 steal0 own0 <<<"$step_ticks_start"
  read -r busy1 steal1 own1 <<<"$ticks_end"
  local other=$((busy1 - busy0 - (steal1 - steal0) - (own1 - own0)))
  if ((other * max_other_share > wall * hz * cpus)); then step_quiet=false; fi
  python3 - "$1" "$cpus" "$wall" "$step_load_start" "$(load_averages)" \
    "$step_quiet" "$hz" "$other" "$((steal1 - steal0))" \
    "$((own1 - own0))" "$settle_seconds" <<'EOF'
import json, sys
(path, cpus, wall, start, end, quiet, hz, other, steal, own,
 settle) = sys.argv[1:]
hz = float(hz)
json.dump({
    "cpus": int(cpus), "wall_s": int(wall),
    "load_start": start, "load_end": end, "quiet": quiet == "true",
    "other_cpu_s": max(0, int(other)) / hz,
    "steal_s": int(steal) / hz, "own_cpu_s": int(own) / hz,
    "settle_s": int(settle),
}, open(path, "w"), indent=1)
EOF
  if ! $step_quiet && ! $allow_noisy; then
    busy_refusal "at the end" "$(load_averages), other work" \
      "$((other / hz)) CPU-s in ${wall} s"
    return 1
  fi
}

# busy_refusal WHEN WHAT...: says why this step's figures are not
# published.
busy_refusal() {
  local when=$1
  shift
  echo "run_benchmarks: the machine is busy $when: load average $* on" \
    "$cpus cores (quiet is at most half the cores after waiting up to" \
    "${settle_seconds} s, and other work under 1/$max_other_share of the" \
    "CPU time). Nothing from this step on was published. Stop the other" \
    "work and run again, or pass --noisy to publish figures marked as" \
    "taken on a busy machine." >&2
}
