#!/usr/bin/env bash
# scripts/figures.py catches a figure typed into the docs that its results
# file does not hold: each row of the README's "When compression pays"
# table, a row of every marked table of docs/benchmarks.md, and every
# figure in prose that names its results cell, each named by file, line
# and results file; --update then puts the results' figure back. Runs on a
# copy of the repository's docs and results, so it tests the marks the
# docs have now.
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

# The places to change, one per line: "FILE LINE COLUMN", COLUMN the offset
# of a figure's last digit in the line. Every figure of a prose line that
# names its cell; in marked tables, the first figure of each row of the
# README's table and of one row per table of docs/benchmarks.md.
places() {
  python3 - "$repo" <<'EOF'
import re, sys
root = sys.argv[1]
figure = r"(?<![\w.])\d+(?:\.\d+)?(?=x|%| ?(?:ns|us|ms|s|min|MB/s)\b)"
for name, rows in (("README.md", "all"), ("docs/benchmarks.md", "first"),
                   ("docs/backends.md", None), ("docs/design.md", None),
                   ("docs/reference.md", None)):
    in_table = False
    for number, line in enumerate(open("%s/%s" % (root, name)), 1):
        if line.startswith("<!-- table from "):
            in_table, first = True, True
            continue
        if in_table and line.startswith("|"):
            m = re.search(figure, line)
            if rows and m and (rows == "all" or first):
                print(name, number, m.end() - 1)
                first = False
            continue
        in_table = False
        for m in re.finditer(figure + r"(?=[^<]{0,5}<!-- results/)", line):
            print(name, number, m.end() - 1)
EOF
}

# Changes the digit at FILE:LINE:COLUMN by one.
change_digit() {
  python3 - "$scratch/root/$1" "$2" "$3" <<'EOF'
import sys
path, number, column = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = open(path).read().split("\n")
line = lines[number - 1]
digit = str((int(line[column]) + 1) % 10)
lines[number - 1] = line[:column] + digit + line[column + 1:]
open(path, "w").write("\n".join(lines))
EOF
}

fresh_copy
python3 "$figures" --root "$scratch/root" > "$scratch/log" 2>&1 ||
  { cat "$scratch/log"; fail "the docs as they are do not pass"; }

count=0
readme_table=0
while read -r file line column; do
  fresh_copy
  change_digit "$file" "$line" "$column"
  status=0
  python3 "$figures" --root "$scratch/root" > "$scratch/log" 2>&1 || status=$?
  [[ $status == 1 ]] || fail "$file:$line changed at $column, status $status"
  grep -qE -- "^$file:$line: results file results/[a-z_]+\.md: " \
    "$scratch/log" || { cat "$scratch/log"; fail "no $file:$line"; }
  python3 "$figures" --update --root "$scratch/root" > /dev/null 2>&1
  cmp -s "$repo/$file" "$scratch/root/$file" ||
    fail "--update did not restore $file:$line"
  count=$((count + 1))
  if [[ $file == README.md ]]; then readme_table=$((readme_table + 1)); fi
done < <(places)
((readme_table >= 12)) || fail "only $readme_table README places changed"
((count >= 30)) || fail "only $count places changed"

# A figure with no source at all.
fresh_copy
printf '\nThe default is 3.17x faster.\n' >> "$scratch/root/docs/benchmarks.md"
if python3 "$figures" --root "$scratch/root" > "$scratch/log" 2>&1; then
  fail "an unmarked figure passed"
fi
grep -qF "3.17x has no source" "$scratch/log" || { cat "$scratch/log"; fail "no 'has no source'"; }

echo "$count changed figures caught and restored by --update" \
  "($readme_table in the README); an unmarked figure refused"
