#!/usr/bin/env bash
# Fails, listing the files, if any tracked C++ source differs from what
# clang-format makes of it under the committed .clang-format. Fails too when
# git cannot list the files (not a checkout, or one git refuses, as a
# checkout of another user's under safe.directory) or lists none: a check of
# zero files proves nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
# An assignment, not a process substitution, whose status set -e ignores.
listing=$(git ls-files -- '*.cc' '*.h' ':(exclude)third_party/')
if [[ -z $listing ]]; then
  echo "check_format.sh: git ls-files listed no C++ sources in $PWD" >&2
  exit 1
fi
mapfile -t files <<< "$listing"
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
