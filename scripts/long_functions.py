#!/usr/bin/env python3
"""Lists the functions of src/ longer than a limit (issue 24: none over ~150 lines outside
data tables).

A brace scan, not a parser: comments, strings and preprocessor lines are blanked, and a `{`
outside any function whose header (the text since the last `;`, `{` or `}`) holds a `)` and
does not open a namespace, class, struct, union, enum or initializer starts a function
body; lambdas and blocks inside count towards the function. Lengths run from the line of
the `{` to the line of its `}`. Not part of CI (it is a heuristic); ctags
(`ctags -R --c++-kinds=f --fields=+ne`) gives the same list on this tree.

Usage: scripts/long_functions.py [--root DIR] [--limit N] [--exclude PREFIX ...] [--all]
  prints "LINES FILE:LINE HEADER" per function longer than N (default 150) lines, longest
  first; exit 1 when there is one.   (python3, standard library only)
"""
import argparse
import os
import re
import sys

SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc", ".inc")
# Data tables written as one function body (one row per line; splitting them would scatter
# one table over several functions): listed with --all, never counted.
DATA_TABLES = {
    ("compiler/atc_options.cpp", "const std::vector<Flag>& flags()"),  # svp_atc's flags, one per row
    ("ops/op_table.cpp", "std::vector<OpDef> build()"),  # the op table, one op per row
}
SCOPE_RE = re.compile(r"(template\s*<.*>\s*)?(namespace|class|struct|union|enum|extern)\b", re.S)


def blank(text):
    """`text` with comments, string/char literals and preprocessor lines removed, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i) and re.match(r'R"([^(\s]*)\(', text[i:]):
            delim = re.match(r'R"([^(\s]*)\(', text[i:]).group(1)
            j = text.find(")" + delim + '"', i)
            j = n if j < 0 else j + len(delim) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(q + q)
            i = j + 1
        elif text[i] == "#" and (i == 0 or text[text.rfind("\n", 0, i) + 1:i].strip() == ""):
            j = text.find("\n", i)
            while 0 < j and text[j - 1] == "\\":
                j = text.find("\n", j + 1)
            i = n if j < 0 else j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def functions(path):
    """(lines, first line, header) of every function body in `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        code = blank(f.read())
    stack, found, header_start, line = [], [], 0, 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            header = code[header_start:i].strip()
            kind = "block"
            if not any(k == "fn" for k, _, _ in stack):
                is_scope = not header or header.endswith("=") or SCOPE_RE.match(header)
                kind = "fn" if (")" in header and not is_scope) else "scope"
            stack.append((kind, line, " ".join(header.split())[-80:]))
            header_start = i + 1
        elif c == "}":
            if stack:
                kind, first, header = stack.pop()
                if kind == "fn":
                    found.append((line - first + 1, first, header))
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--exclude", nargs="*", default=[], help="src-relative path prefixes to skip")
    ap.add_argument("--all", action="store_true", help="also list the data tables (DATA_TABLES)")
    args = ap.parse_args()
    src = os.path.join(os.path.abspath(args.root), "src")
    long_ones = []
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(SOURCE_EXT):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            if any(rel.startswith(p) for p in args.exclude):
                continue
            for lines, first, header in functions(path):
                if not args.all and (rel, header) in DATA_TABLES:
                    continue
                if lines > args.limit:
                    long_ones.append((lines, f"src/{rel}:{first}", header))
    for lines, where, header in sorted(long_ones, reverse=True):
        print(f"{lines:5} {where} {header}")
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main())
