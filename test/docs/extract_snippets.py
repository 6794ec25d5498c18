#!/usr/bin/env python3
"""Extracts the marked code blocks of a Markdown file for the snippet test.

A block is marked by an HTML comment on the line before its fence:

    <!-- snippet: NAME -->
    ```cpp

What happens to it depends on its fence's language:

- C++ (cpp, c++, cxx, cc): built from test/docs/snippets/NAME.cc, its
  harness, which declares what the block uses but does not define (a
  `builder`, a `service`) and includes it inside a function. The block's
  `#include` lines go to NAME.includes.inc (the harness includes that at
  file scope), the rest to NAME.body.inc under a #line mark (errors name
  the README's lines). The harness's first line names
  the CMake block whose project builds it:
  `// Built by the README's CMake snippet "NAME".`
- CMake: configured and built for real, as the end of a project that has
  one executable, my_service, made of the harnesses that name it.
- Shell (sh, bash): run by test/docs/snippets/NAME.sh if there is one;
  otherwise left to whatever runs it (the install block is run by a stage
  of its own).

It fails on a C++ or CMake block without a mark (so that no such block
escapes the test), a mark not followed by a fence, a name used twice, a C++
block without a harness, or a harness without a block.

Writes into OUT: cpp/ (each harness and its two .inc files), sh/ (each run
shell block and its runner), and projects/NAME/ (CMakeLists.txt and main.cc
per CMake block), and prints what it wrote.

    extract_snippets.py README.md HARNESS_DIR OUT
    extract_snippets.py --print NAME README.md   # one block's text, as is
"""
import os
import re
import shutil
import sys

CXX = {"cpp", "c++", "cxx", "cc"}
CMAKE = {"cmake"}
SHELL = {"sh", "bash", "shell"}
# Languages that must be marked: code that a reader compiles.
MUST_MARK = CXX | CMAKE | {"c", "h", "hpp"}
MARK = re.compile(r"^<!-- snippet: ([A-Za-z0-9_-]+) -->\s*$")
FENCE = re.compile(r"^(```+|~~~+)\s*([^\s`]*)")
BUILT_BY = re.compile(r"^// Built by the README's CMake snippet \"([^\"]+)\"")


def ident(name):
    return name.replace("-", "_")


def parse(path):
    """Returns [(name or None, language, text, line)] for every fence."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, errors = [], []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if MARK.match(lines[i]) and not (
                    i + 1 < len(lines) and FENCE.match(lines[i + 1])):
                errors.append("%s:%d: a snippet mark not followed by a fence"
                              % (path, i + 1))
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        mark = MARK.match(lines[i - 1]) if i > 0 else None
        start = i
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith(fence):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            errors.append("%s:%d: fence never closed" % (path, start + 1))
        i += 1
        blocks.append((mark.group(1) if mark else None, lang,
                       "\n".join(body) + "\n", start + 1))
    return blocks, errors


def print_block(name, readme):
    blocks, errors = parse(readme)
    texts = [text for n, _, text, _ in blocks if n == name]
    if errors or len(texts) != 1:
        print("\n".join(errors) or "%s: no single snippet %s" % (readme, name),
              file=sys.stderr)
        return 1
    sys.stdout.write(texts[0])
    return 0


def main():
    if sys.argv[1] == "--print":
        return print_block(sys.argv[2], sys.argv[3])
    readme, harness_dir, out = sys.argv[1:4]
    blocks, errors = parse(readme)
    seen = {}
    for name, lang, _, line in blocks:
        if name is None and lang in MUST_MARK:
            errors.append("%s:%d: a ```%s block without a "
                          "<!-- snippet: NAME --> mark: the test must build "
                          "it" % (readme, line, lang))
        if name is not None:
            if name in seen:
                errors.append("%s:%d: snippet %s is also on line %d"
                              % (readme, line, name, seen[name]))
            seen[name] = line
    cxx = [(n, t, line) for n, lang, t, line in blocks if n and lang in CXX]
    cmake = [(n, t) for n, lang, t, _ in blocks if n and lang in CMAKE]
    shell = [(n, t) for n, lang, t, _ in blocks if n and lang in SHELL]
    other = [(n, lang) for n, lang, _, _ in blocks
             if n and lang not in CXX | CMAKE | SHELL]
    for n, lang in other:
        errors.append("snippet %s: no rule for ```%s blocks" % (n, lang))

    cmake_names = {n for n, _ in cmake}
    built_by = {}
    for name, _, _ in cxx:
        harness = os.path.join(harness_dir, name + ".cc")
        if not os.path.exists(harness):
            errors.append("snippet %s: no harness %s" % (name, harness))
            continue
        m = BUILT_BY.match(open(harness, encoding="utf-8").readline())
        if not m or m.group(1) not in cmake_names:
            errors.append("%s: its first line must name a CMake snippet of "
                          "the README (%s)" % (harness,
                                               ", ".join(sorted(cmake_names))))
            continue
        built_by.setdefault(m.group(1), []).append(name)
    names = {n for n, _, _ in cxx} | {n for n, _ in shell}
    for f in sorted(os.listdir(harness_dir)):
        stem, ext = os.path.splitext(f)
        if ext in (".cc", ".sh") and stem not in names:
            errors.append("%s: a harness for no snippet of the README"
                          % os.path.join(harness_dir, f))
    for name in cmake_names:
        if name not in built_by:
            errors.append("CMake snippet %s builds no C++ snippet" % name)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1

    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "cpp"))
    os.makedirs(os.path.join(out, "sh"))
    for name, text, fence_line in cxx:
        # Compilers report errors at the README's own lines.
        line_mark = '#line %d "%s"\n' % (fence_line + 1,
                                         os.path.abspath(readme))
        lines = text.split("\n")
        includes = [l for l in lines if l.startswith("#include")]
        body = [l if not l.startswith("#include") else "" for l in lines]
        d = os.path.join(out, "cpp")
        open(os.path.join(d, name + ".includes.inc"), "w").write(
            "\n".join(includes) + "\n")
        open(os.path.join(d, name + ".body.inc"), "w").write(
            line_mark + "\n".join(body))
        shutil.copy(os.path.join(harness_dir, name + ".cc"), d)
        print("C++ %s" % name)
    for name, text in cmake:
        d = os.path.join(out, "projects", name)
        os.makedirs(d)
        sources = built_by[name]
        with open(os.path.join(d, "main.cc"), "w") as f:
            f.write("// Generated: runs the harnesses' Run(), which run the\n"
                    "// snippets that are safe to run, with the argument "
                    "\"run\".\n#include <cstring>\n")
            for s in sources:
                f.write("namespace readme_snippet_%s { void Run(); }\n"
                        % ident(s))
            f.write("int main(int argc, char** argv) {\n"
                    "  if (argc < 2 || std::strcmp(argv[1], \"run\") != 0) "
                    "return 0;\n")
            for s in sources:
                f.write("  readme_snippet_%s::Run();\n" % ident(s))
            f.write("  return 0;\n}\n")
        with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
            f.write("# Generated from the README's CMake snippet %s: a "
                    "project with one\n# executable, my_service, then the "
                    "snippet.\n" % name)
            f.write("cmake_minimum_required(VERSION 3.16)\n"
                    "project(readme_snippet_%s LANGUAGES CXX)\n"
                    "set(CMAKE_CXX_STANDARD 17)\n"
                    "set(CMAKE_CXX_STANDARD_REQUIRED ON)\n" % ident(name))
            f.write("add_executable(my_service main.cc\n%s)\n" % "".join(
                "  ${CMAKE_CURRENT_LIST_DIR}/../../cpp/%s.cc\n" % s
                for s in sources))
            f.write("# The snippet:\n" + text)
        print("CMake %s: builds %s" % (name, " ".join(sources)))
    for name, text in shell:
        runner = os.path.join(harness_dir, name + ".sh")
        if not os.path.exists(runner):
            print("shell %s: not run here (no %s)" % (name, runner))
            continue
        d = os.path.join(out, "sh")
        open(os.path.join(d, name + ".snippet.sh"), "w").write(text)
        shutil.copy(runner, d)
        print("shell %s: run by %s.sh" % (name, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
