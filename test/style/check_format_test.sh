#!/usr/bin/env bash
# scripts/check_format.sh where it has nothing to check: it must fail, not
# report "0 files clang-formatted", when git cannot list the sources or
# lists none. A checkout with one formatted source passing first shows the
# failures are the listing's.
set -euo pipefail
script=$(cd "$(dirname "$0")/../.." && pwd)/scripts/check_format.sh
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

# Runs the script copied into a fresh checkout at $1 (it checks the
# checkout it sits in), expecting exit status zero or not ($2).
expect() {
  local checkout=$1 want=$2 what=$3
  shift 3
  local status=0 output
  output=$("$@" "$checkout/scripts/check_format.sh" 2>&1) || status=$?
  if [[ $want == pass && $status != 0 ]] ||
    [[ $want == fail && $status == 0 ]]; then
    echo "FAIL: $what: exit $status, expected to $want; it printed:"
    echo "$output"
    failures=$((failures + 1))
  else
    echo "ok: $what: exit $status"
  fi
}

# A checkout of its own: git init, the script, and the named sources staged.
checkout() {
  local dir=$scratch/$1
  shift
  mkdir -p "$dir/scripts"
  git -C "$dir" init -q
  cp "$script" "$dir/scripts/"
  for source in "$@"; do
    printf 'int main() { return 0; }\n' > "$dir/$source"
    git -C "$dir" add "$source"
  done
}

checkout one main.cc
expect "$scratch/one" pass "one formatted source"
expect "$scratch/one" fail "GIT_DIR pointing nowhere" \
  env GIT_DIR="$scratch/nowhere"
checkout none
expect "$scratch/none" fail "no C++ sources tracked"
# As the test command runs (root): a checkout of another user's, which git
# refuses (safe.directory). Only the command line's configuration, so that a
# global safe.directory = * does not lift the refusal.
if ((EUID == 0)); then
  chown -R 65534:65534 "$scratch/one"
  expect "$scratch/one" fail "a checkout owned by another user, as root" \
    env GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
else
  echo "not root: the other user's checkout is not tried"
fi

if ((failures > 0)); then
  echo "$failures cases failed"
  exit 1
fi
echo "all cases passed"
