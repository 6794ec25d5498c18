#!/usr/bin/env python3
"""Keeps the measured figures in README.md and docs/*.md equal to the
results/ files they come from.

Two marks, as HTML comments the rendered page does not show:

  <!-- table from results/links.md: link, size, none, stock gzip -->
      (the whole line; a column whose name has a comma is quoted:
      "text, default")
      The table right below is those columns of the first table in
      results/links.md whose header has them all, every row, in order.
      --update rewrites it; the check fails on any cell that differs.

  0.52x<!-- results/links.md | 100 Mbit/s | pooled libdeflate-6 (default) -->
      A figure in prose names its cell right after it: the first table of
      results/links.md with that column and a row holding every key
      before it ("#Title" as a key: a table under that heading). The figure is that cell's figure of the same unit, which
      prose may round: "0.5x" stands for 0.45x to 0.55x. --update rewrites
      it, to as many decimals as the prose has.

A figure is a number with a unit: x (a ratio), ns, us, ms, s, min, MB/s
or %. A ratio or time with a decimal point, or any ns, us, ms, min or
MB/s figure, outside a marked table and without its cell has no source
and fails the check: measured figures are never typed in by hand.

  scripts/figures.py [--update] [--root DIR] [FILE...]

Without FILE, README.md and docs/*.md under the root (default: the
repository). Exit status 1 when a figure differs or has no source; each
problem names the file, the line and the results file.
"""

import argparse
import csv
import glob
import os
import re
import sys

TABLE_MARK = re.compile(r"^<!-- table from (\S+): (.+?) -->$")
CELL_REF = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)( ?(?:ns|us|ms|s|min|MB/s)|x|%)"
    r"<!-- (results/\S+) \| (.+?) -->")
FIGURE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?"
    r"(?: ?(ns|us|ms|s|min|MB/s)\b|(x)\b|(%))")
# Outside the marks, these are measurements wherever they appear.
MEASURED = re.compile(
    r"(?<![\w.])\d+\.\d+x\b|(?<![\w.])\d+(?:\.\d+)? ?(?:ns|us|ms|min|MB/s)\b|"
    r"(?<![\w.])\d+\.\d+ ?s\b")


def figures_in(text):
    """(value text, unit) for every figure, both ends of a range."""
    out = []
    for m in FIGURE.finditer(text):
        unit = m.group(3) or m.group(4) or m.group(5)
        out.append((m.group(1), unit))
        if m.group(2):
            out.append((m.group(2), unit))
    return out


def rounds_to(source, prose):
    """Whether a results figure, rounded as the prose writes it, is it."""
    decimals = len(prose.split(".")[1]) if "." in prose else 0
    return abs(float(source) - float(prose)) <= 0.5 * 10**-decimals + 1e-9


def split_row(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables_in(lines):
    """Each markdown table: (first line index, header, rows)."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and \
                re.match(r"^\|[-| :]+\|$", lines[i + 1].strip()):
            start, header, rows = i, split_row(lines[i]), []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(split_row(lines[i]))
                i += 1
            out.append((start, header, rows))
        else:
            i += 1
    return out


def render(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


class Checker:

    def __init__(self, root):
        self.root = root
        self.problems = []
        self.sources = {}

    def source(self, name):
        """The results file's text, or None if there is none."""
        if name not in self.sources:
            try:
                with open(os.path.join(self.root, name)) as f:
                    self.sources[name] = f.read()
            except OSError:
                self.sources[name] = None
        return self.sources[name]

    def problem(self, path, line, source, what):
        self.problems.append("%s:%d: %s%s" % (
            os.path.relpath(path, self.root), line + 1,
            "results file %s: " % source if source else "", what))

    def wanted_table(self, source, columns):
        for _, header, rows in tables_in(self.source(source).splitlines()):
            if all(c in header for c in columns):
                at = [header.index(c) for c in columns]
                return columns, [[r[i] for i in at] for r in rows]
        return None

    def table(self, path, lines, mark_at, source, columns, update):
        """Checks (or rewrites) the table after the mark; returns the lines
        with it rewritten."""
        if self.source(source) is None:
            self.problem(path, mark_at, source, "no such results file")
            return lines
        wanted = self.wanted_table(source, columns)
        start = mark_at + 1
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        if wanted is None:
            self.problem(path, mark_at, source,
                         "no table with columns %s" % ", ".join(columns))
            return lines
        expected = render(*wanted)
        if update:
            return lines[:start] + expected + lines[end:]
        if start == end:
            self.problem(path, mark_at, source, "no table below the mark")
        for i in range(max(end - start, len(expected))):
            have = lines[start + i] if start + i < end else "(no row)"
            want = expected[i] if i < len(expected) else "(no row)"
            if split_row(have) != split_row(want):
                self.problem(path, start + i if start + i < end else end,
                             source, "table row is\n    %s\n  but the "
                             "results say\n    %s" % (have, want))
        return lines

    def cell(self, source, keys, column):
        """The text of the cell in `column` of the first table of `source`
        with a row holding every key, or None. A key "#Title" asks for a
        table under the heading "Title"."""
        lines = self.source(source).splitlines()
        headings = [k[1:] for k in keys if k.startswith("#")]
        keys = [k for k in keys if not k.startswith("#")]
        for start, header, rows in tables_in(lines):
            if column not in header:
                continue
            if headings:
                above = [l for l in lines[:start] if l.startswith("#")]
                if not above or \
                        above[-1].lstrip("#").strip() != headings[0]:
                    continue
            for row in rows:
                plain = [c.replace("**", "").strip() for c in row]
                if all(k in plain for k in keys):
                    return row[header.index(column)]
        return None

    def prose(self, path, i, line, update):
        """Checks (or rewrites) the figures bound to a cell on the line and
        reports those that are not; returns the line."""
        def check(m):
            value, unit, source = m.group(1), m.group(2).strip(), m.group(3)
            parts = [p.strip() for p in m.group(4).split("|")]
            keys, column = parts[:-1], parts[-1]
            shown = value + ("" if unit in ("x", "%") else " ") + unit
            if self.source(source) is None:
                self.problem(path, i, source, "no such results file")
                return m.group(0)
            cell = self.cell(source, keys, column)
            figures = [v for v, u in figures_in(cell or "") if u == unit]
            if not figures:
                self.problem(path, i, source, "%s: no %s cell \"%s\" in a "
                             "row with %s" % (shown, unit, column,
                                              ", ".join(keys)))
                return m.group(0)
            if update:
                decimals = len(value.split(".")[1]) if "." in value else 0
                return m.group(0).replace(
                    value, "%.*f" % (decimals, float(figures[0])), 1)
            if not rounds_to(figures[0], value):
                self.problem(path, i, source, "%s is not %s%s, its cell (%s; "
                             "%s)" % (shown, figures[0],
                                      "" if unit in ("x", "%") else " " + unit,
                                      ", ".join(keys), column))
            return m.group(0)

        line = CELL_REF.sub(check, line)
        for m in MEASURED.finditer(CELL_REF.sub("", line)):
            self.problem(path, i, None, "%s has no source: name its results "
                         "cell after it" % m.group(0))
        return line

    def file(self, path, update):
        with open(path) as f:
            lines = f.read().split("\n")
        in_code = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("```"):
                in_code = not in_code
            mark = TABLE_MARK.search(line.strip())
            if mark and not in_code:
                columns = next(csv.reader([mark.group(2)],
                                          skipinitialspace=True))
                lines = self.table(path, lines, i, mark.group(1), columns,
                                   update)
                i += 1
                while i < len(lines) and lines[i].startswith("|"):
                    i += 1
                continue
            if not in_code:
                lines[i] = self.prose(path, i, line, update)
            i += 1
        if update:
            with open(path, "w") as f:
                f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true",
                        help="rewrite the marked tables and the figures "
                        "that name their cell from results/")
    parser.add_argument("--root", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or [os.path.join(args.root, "README.md")] + sorted(
        glob.glob(os.path.join(args.root, "docs", "*.md")))
    checker = Checker(args.root)
    for path in files:
        checker.file(path, args.update)
    for p in checker.problems:
        print(p, file=sys.stderr)
    if checker.problems:
        print("%d figure(s) differ from results/ or have no source; "
              "scripts/figures.py --update rewrites the marked ones"
              % len(checker.problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
