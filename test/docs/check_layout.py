#!/usr/bin/env python3
"""Checks docs/design.md's layout table against the tree.

Every path in the table's first column exists; every file the second column
names (a `name.ext` or `name.*` in backticks, relative to the row's folders
or to the root) exists; and every file under plugin/src is named by some
row's second column, so that a file added or removed there without the
table fails here, naming it.

  check_layout.py [--root DIR] [--self-test]

--self-test checks the check: a table naming a file that is not there, and
one that leaves a file of plugin/src out, must each fail.
"""

import argparse
import glob
import os
import re
import sys

SECTION = "## Layout"
CODE = re.compile(r"`([^`]+)`")
# A file name in the second column: `codec.*`, `bit_reader.h`, `*.map`,
# `scripts/figures.py`; not a symbol, a command or a test name.
FILE_NAME = re.compile(r"^[\w*./-]*\w[\w*-]*\.(\*|[A-Za-z][\w]*)$")
CHECKED_TREE = "plugin/src"


def layout_rows(text):
    """(path cell, what cell) of each row of the table under SECTION."""
    start = text.find("\n" + SECTION + "\n")
    if start < 0:
        return []
    rows = []
    for line in text[start + len(SECTION) + 2:].splitlines():
        if line.startswith("## "):
            break
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if len(cells) == 2:
            rows.append((cells[0], cells[1]))
    return rows


def matches(root, pattern):
    return {os.path.relpath(path, root)
            for path in glob.glob(os.path.join(root, pattern))}


def problems(root, text):
    rows = layout_rows(text)
    if not rows:
        return ["docs/design.md has no table under '%s'" % SECTION]
    found = []
    named = set()
    for path_cell, what_cell in rows:
        folders = []
        for path in CODE.findall(path_cell):
            if not matches(root, path.rstrip("/")):
                found.append("the layout names %s, which is not in the tree"
                             % path)
            if path.endswith("/"):
                folders.append(path)
            elif "/" in path:  # a pattern such as plugin/src/*.cc
                folders.append(os.path.dirname(path) + "/")
        for token in CODE.findall(what_cell):
            if not FILE_NAME.match(token):
                continue
            files = set()
            for base in folders + [""]:
                files |= matches(root, base + token)
            if not files:
                found.append("the row of %s names %s, which is not in the tree"
                             % (path_cell, token))
            named |= files
    for folder, _, files in os.walk(os.path.join(root, CHECKED_TREE)):
        for name in files:
            path = os.path.relpath(os.path.join(folder, name), root)
            if path not in named:
                found.append("%s is not named in the layout table" % path)
    return sorted(found)


def self_test(root, text):
    """The check fails on a file that is not there and on one left out."""
    failures = []
    ghost = text.replace("`codec.*`, ", "`codec.*`, `no_such_file.h`, ", 1)
    if not any("no_such_file.h" in p for p in problems(root, ghost)):
        failures.append("a row naming no_such_file.h passed")
    left_out = text.replace("`pools.*`", "", 1)
    if left_out == text:
        failures.append("the self-test found no `pools.*` to leave out")
    elif not any("plugin/src/codec/pools.cc is not named" in p
                 for p in problems(root, left_out)):
        failures.append("a table without pools.* passed")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    with open(os.path.join(root, "docs", "design.md"), encoding="utf-8") as f:
        text = f.read()
    found = self_test(root, text) if args.self_test else problems(root, text)
    for problem in found:
        print("docs/design.md, Layout: " + problem)
    if found:
        return 1
    print("docs/design.md's layout table matches the tree" +
          (" (self-test)" if args.self_test else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
