#!/usr/bin/env bash
# scripts/test.sh where CI is set: SKIP_SANITIZERS, SKIP_GRPC_183,
# SKIP_LIBRARY_INSTALL and SKIP_ARM64 are refused at once, naming the
# variable, before anything is installed. Runs a copy of the script beside a
# stand-in install_deps.sh that leaves a mark and stops the run, so that a
# refusal that does not happen costs no install and no build; without CI the
# same switches reach it.
set -euo pipefail
script=$(cd "$(dirname "$0")/../.." && pwd)/scripts/test.sh
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/scripts"
cp "$script" "$scratch/scripts/"
cat > "$scratch/scripts/install_deps.sh" << 'STUB'
#!/usr/bin/env bash
touch "$(dirname "$0")/installing"
exit 1
STUB
chmod +x "$scratch/scripts/install_deps.sh"
failures=0

# Runs the copy with the environment given; $1: "refused" or "installs".
expect() {
  local want=$1
  shift
  rm -f "$scratch/scripts/installing"
  local status=0 output
  output=$(env -u CI -u SKIP_SANITIZERS -u SKIP_GRPC_183 \
    -u SKIP_LIBRARY_INSTALL -u SKIP_ARM64 "$@" \
    "$scratch/scripts/test.sh" 2>&1) || status=$?
  local installed=no
  [[ -e $scratch/scripts/installing ]] && installed=yes
  local ok=no
  if [[ $want == refused ]]; then
    local variable=${2%%=*}
    [[ $status != 0 && $installed == no && $output == *"$variable"* ]] &&
      ok=yes
  else
    [[ $installed == yes ]] && ok=yes
  fi
  if [[ $ok == yes ]]; then
    echo "ok: $*: exit $status, install reached: $installed"
  else
    echo "FAIL: $*: expected $want; exit $status, install reached:" \
      "$installed; it printed:"
    echo "$output"
    failures=$((failures + 1))
  fi
}

for switch in SKIP_SANITIZERS SKIP_GRPC_183 SKIP_LIBRARY_INSTALL \
  SKIP_ARM64; do
  expect refused CI=true "$switch=1"
  expect installs "$switch=1"
done
expect installs CI=true

if ((failures > 0)); then
  echo "$failures cases failed"
  exit 1
fi
echo "all cases passed"
