#!/usr/bin/env bash
# scripts/figures.py catches a figure typed into the docs that its results
# file does not hold: in the README's "When compression pays" table, in a
# docs/benchmarks.md table and in docs/benchmarks.md's prose, naming the
# file, the line and the results file each time. Runs on a copy of the
# repository's docs and results, so it tests the marks the docs have now.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
figures=$repo/scripts/figures.py
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

fresh_copy() {
  rm -rf "$scratch/root"
  mkdir "$scratch/root"
  cp -r "$repo/README.md" "$repo/docs" "$repo/results" "$scratch/root/"
}

# $1: the file; $2: a line number in it; $3: what the check must say. The
# line's first figure ("1.23x", "45 ms") is changed by one in its last digit.
expect_caught() {
  fresh_copy
  python3 - "$scratch/root/$1" "$2" <<'EOF'
import re, sys
path, number = sys.argv[1], int(sys.argv[2])
lines = open(path).read().split("\n")
m = re.search(r"(?<![\w.])\d+(\.\d+)?(?=x| ?(us|ms|s)\b)", lines[number - 1])
assert m, "no figure on %s:%d: %s" % (path, number, lines[number - 1])
digits = m.group(0)
changed = digits[:-1] + str((int(digits[-1]) + 1) % 10)
lines[number - 1] = lines[number - 1][:m.start()] + changed + \
    lines[number - 1][m.end():]
open(path, "w").write("\n".join(lines))
EOF
  local status=0
  python3 "$figures" --root "$scratch/root" > "$scratch/log" 2>&1 || status=$?
  [[ $status == 1 ]] || { cat "$scratch/log"; fail "$1:$2 changed, status $status"; }
  grep -qF -- "$1:$2: " "$scratch/log" || { cat "$scratch/log"; fail "no $1:$2"; }
  grep -qF -- "$3" "$scratch/log" || { cat "$scratch/log"; fail "no '$3'"; }
}

# The first line with a figure after a line starting with $2 in $1.
line_after_mark() {
  python3 - "$1" "$2" <<'EOF'
import re, sys
found = False
for number, line in enumerate(open(sys.argv[1]), 1):
    if line.startswith(sys.argv[2]):
        found = True
    elif found and re.search(r"(?<![\w.])\d+(\.\d+)?(x| ?(us|ms|s)\b)", line):
        print(number)
        break
EOF
}

fresh_copy
python3 "$figures" --root "$scratch/root" > "$scratch/log" 2>&1 ||
  { cat "$scratch/log"; fail "the docs as they are do not pass"; }

readme_row=$(line_after_mark "$repo/README.md" \
  "<!-- table from results/links.md:")
expect_caught README.md "$readme_row" "(results file: results/links.md)"

table_row=$(line_after_mark "$repo/docs/benchmarks.md" "<!-- table from ")
expect_caught docs/benchmarks.md "$table_row" "(results file: results/"

prose_line=$(line_after_mark "$repo/docs/benchmarks.md" "<!-- figures from ")
expect_caught docs/benchmarks.md "$prose_line" "is not a figure of"

# A figure with no mark at all.
fresh_copy
printf '\nThe default is 3.17x faster.\n' >> "$scratch/root/docs/benchmarks.md"
if python3 "$figures" --root "$scratch/root" > "$scratch/log" 2>&1; then
  fail "an unmarked figure passed"
fi
grep -qF "3.17x has no source" "$scratch/log" || { cat "$scratch/log"; fail "no 'has no source'"; }

echo "changed figures caught: README.md:$readme_row," \
  "docs/benchmarks.md:$table_row (table), docs/benchmarks.md:$prose_line" \
  "(prose); an unmarked figure refused"
