#!/usr/bin/env bash
# Fails, listing the files, if any tracked C++ source differs from what
# clang-format makes of it under the committed .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h' | grep -v '^third_party/')
unformatted=()
for file in "${files[@]}"; do
  if ! clang-format --dry-run -Werror "$file" > /dev/null 2>&1; then
    unformatted+=("$file")
  fi
done
if ((${#unformatted[@]} > 0)); then
  echo "not clang-formatted (run clang-format -i on them):"
  printf '  %s\n' "${unformatted[@]}"
  exit 1
fi
echo "${#files[@]} files clang-formatted"
