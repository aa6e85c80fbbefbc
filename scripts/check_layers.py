#!/usr/bin/env python3
"""Checks that the folders of src/ include each other only downwards.

Reads every `#include "folder/..."` in src/, maps each file to its folder (src/<folder>;
src/hal/softnpu and src/hal/fault are sub-layers of hal; everything under src/compiler is
`compiler`), prints the folder dependency graph and fails (exit 1, naming file:line) on
  - an include that points up against LAYERS (or sideways between two folders of one tier),
  - a cycle between folders,
  - an include of a folder LAYERS does not name.
It also reports, for src/capi (the C shims):
  - includes of anything but runtime-level headers (CAPI_MAY_INCLUDE),
  - C API functions (svp_acl_*) longer than SHIM_MAX_LINES (a brace-based count);
and for src/rknn (librknnrt's C shims, beside capi) the same two rules, always strict:
rknn_* functions within SHIM_MAX_LINES, includes within RKNN_MAY_INCLUDE.
Each of those two fails once it is declared strict (STRICT_SHIM_LENGTH,
STRICT_CAPI_INCLUDES: set when its list was emptied, so a new one fails); until then its
list is printed as warnings.

Usage: scripts/check_layers.py [--root DIR] [--quiet]   (python3, standard library only)
"""
import argparse
import os
import re
import sys

# The allowed order, top to bottom (docs/runtime.md "Layers", ../shared/design/ARCHITECTURE.md).
# A folder may include folders of LOWER tiers only; folders of one tier are "beside" each
# other and may not include one another. Data flows top to bottom; include arrows must too.
#   - compiler is used by the tools only (nothing in the library includes it).
#   - rknn (librknnrt's C shims, include/rknn/rknn_api.h) sits beside capi: both are
#     vendor front-ends over the runtime; the RKNN policy is in runtime/rknn_context.*.
#   - aipp sits below exec: the executor calls it, it never reaches back into exec.
#   - profiling is fed by runtime and exec and observes HAL tasks (hal::TaskObserver), so it
#     sits above hal.
#   - hal/softnpu and hal/fault are backends: they implement the interface in src/hal
#     (hal.h, fence.h), so in include terms they sit above it, beside each other (hal.cpp's
#     factory table reaches them through declarations, not includes).
#   - kernels sit beside hal: the executor hands the HAL segments that run them.
#   - target (device profiles: op support sets, cores, layouts, timing figures) sits beside
#     kernels: the compiler, and later the runtime and the timing model, read it.
#   - model (the offline model file and the Program IR) is the lowest domain layer: it
#     includes nothing from kernels, aipp or the runtime.
#   - ops (the op table: what each op is) is below model, which asks it whether an op is
#     recurrent; it includes only common. common is below all.
LAYERS = [
    ["compiler"],
    ["capi", "rknn"],
    ["runtime"],
    ["exec"],
    ["aipp"],
    ["profiling", "hal/softnpu", "hal/fault"],
    ["hal", "kernels", "target"],
    ["model"],
    ["ops"],
    ["common"],
]

# What a C shim (src/capi) may include besides the standard library and system headers:
# the runtime's headers, common, capi's own helpers and the public headers (include/).
CAPI_MAY_INCLUDE = {"runtime", "common", "capi", "acl", "svp"}
SHIM_MAX_LINES = 15
# What an RKNN C shim (src/rknn) may include: the runtime, common, its own helpers and the
# public headers.
RKNN_MAY_INCLUDE = {"runtime", "common", "rknn", "acl", "svp"}
# Both strict since their lists were emptied (every shim within SHIM_MAX_LINES; capi includes
# only CAPI_MAY_INCLUDE, the AIPP functions and the config handles reaching the model through
# runtime/aipp.h and runtime/runtime.h): a regression fails instead of warning.
STRICT_SHIM_LENGTH = True
STRICT_CAPI_INCLUDES = True

SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc", ".inc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
PUBLIC_HEADER_DIRS = {"acl", "svp", "rknn"}  # include/acl, include/svp, include/rknn


def folder_of(rel):
    """src-relative path -> folder name (None for files directly in src/)."""
    parts = rel.split("/")
    if len(parts) < 2:
        return None
    if parts[0] == "hal" and len(parts) > 2 and parts[1] in ("softnpu", "fault"):
        return "hal/" + parts[1]
    return parts[0]


def target_folder(inc, src_root, including_dir):
    """An include path -> the src folder it names, or None (public header, local file)."""
    if os.path.exists(os.path.join(including_dir, inc)) and "/" not in inc:
        return None  # a file beside the includer ("report_template.inc")
    first = inc.split("/")[0]
    # A file under src/ first ("rknn/guard.h" is src/rknn's), then the public headers
    # ("rknn/rknn_api.h" is include/rknn's).
    if os.path.exists(os.path.join(src_root, inc)):
        return folder_of(inc)
    if first in PUBLIC_HEADER_DIRS:
        return first
    return None  # not in src/ (a tool's or a test's header, generated files)


def scan(src_root):
    """Yields (file, line, from_folder, to_folder_or_public, include)."""
    for dirpath, _, files in os.walk(src_root):
        for name in sorted(files):
            if not name.endswith(SOURCE_EXT):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src_root).replace(os.sep, "/")
            src_folder = folder_of(rel)
            if src_folder is None:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE_RE.match(line)
                    if not m:
                        continue
                    tgt = target_folder(m.group(1), src_root, dirpath)
                    if tgt is None:
                        continue
                    yield rel, lineno, src_folder, tgt, m.group(1)


def tier_of():
    return {f: i for i, tier in enumerate(LAYERS) for f in tier}


def find_cycles(graph):
    """Strongly connected components with more than one folder (Tarjan)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


SHIM_START_RE = re.compile(r"^(?:extern\s+\"C\"\s+)?(?:[A-Za-z_][\w\s\*]*?\s)?\**(svp_acl_\w+)\s*\(")
RKNN_SHIM_START_RE = re.compile(r"^(?:[A-Za-z_][\w\s\*]*?\s)?\**(rknn_\w+)\s*\(")


def long_shims(capi_dir, start_re=SHIM_START_RE):
    """(file, line, function, lines) of each C API definition (svp_acl_* in src/capi,
    rknn_* in src/rknn) longer than SHIM_MAX_LINES, counted from its signature's first line
    to its closing brace."""
    out = []
    folder = os.path.basename(capi_dir)
    for name in sorted(os.listdir(capi_dir)):
        if not name.endswith(".cpp"):
            continue
        path = os.path.join(capi_dir, name)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        i = 0
        while i < len(lines):
            m = start_re.match(lines[i])
            if not m or lines[i].startswith((" ", "\t", "#", "//")):
                i += 1
                continue
            # Find the body: the first "{" before a ";" (a declaration has no body).
            j, depth, opened, decl = i, 0, False, False
            while j < len(lines):
                code = re.sub(r'"(?:\\.|[^"\\])*"', '""', lines[j].split("//")[0])
                for ch in code:
                    if ch == ";" and not opened:
                        decl = True
                        break
                    if ch == "{":
                        depth += 1
                        opened = True
                    elif ch == "}":
                        depth -= 1
                if decl or (opened and depth == 0):
                    break
                j += 1
            if not decl and opened:
                length = j - i + 1
                if length > SHIM_MAX_LINES:
                    out.append((f"src/{folder}/{name}", i + 1, m.group(1), length))
            i = j + 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--quiet", action="store_true", help="print problems only")
    args = ap.parse_args()
    src_root = os.path.join(os.path.abspath(args.root), "src")

    tiers = tier_of()
    graph, edge_count, problems, capi_includes = {}, {}, [], []
    for rel, lineno, frm, to, inc in scan(src_root):
        if frm == "rknn" and to not in RKNN_MAY_INCLUDE:
            problems.append(f"src/{rel}:{lineno}: #include \"{inc}\" (rknn may include only "
                            f"{', '.join(sorted(RKNN_MAY_INCLUDE))})")
        if frm == "capi" and to not in CAPI_MAY_INCLUDE:
            capi_includes.append(f"src/{rel}:{lineno}: #include \"{inc}\" (capi may include only "
                                 f"{', '.join(sorted(CAPI_MAY_INCLUDE))})")
        if to in PUBLIC_HEADER_DIRS or to == frm:
            continue
        graph.setdefault(frm, set()).add(to)
        edge_count[(frm, to)] = edge_count.get((frm, to), 0) + 1
        if frm not in tiers or to not in tiers:
            problems.append(f"src/{rel}:{lineno}: #include \"{inc}\": folder "
                            f"{frm if frm not in tiers else to} is not in LAYERS")
        elif tiers[to] < tiers[frm]:
            problems.append(f"src/{rel}:{lineno}: #include \"{inc}\": {frm} -> {to} points UP")
        elif tiers[to] == tiers[frm]:
            problems.append(f"src/{rel}:{lineno}: #include \"{inc}\": {frm} -> {to} are beside each other "
                            f"(same tier)")

    if not args.quiet:
        print("Folder dependency graph (from -> to [includes]), top to bottom:")
        order = [f for tier in LAYERS for f in tier] + sorted(set(graph) - set(tiers))
        for frm in order:
            if frm not in graph:
                continue
            tos = sorted(graph[frm], key=lambda t: (tiers.get(t, 99), t))
            print(f"  {frm:12} -> " + ", ".join(f"{t} [{edge_count[(frm, t)]}]" for t in tos))

    cycles = find_cycles(graph)
    for comp in cycles:
        problems.append("cycle between folders: " + " <-> ".join(comp))

    shims = long_shims(os.path.join(src_root, "capi"))
    rknn_dir = os.path.join(src_root, "rknn")
    rknn_shims = long_shims(rknn_dir, RKNN_SHIM_START_RE) if os.path.isdir(rknn_dir) else []
    for f, line, fn, n in rknn_shims:
        problems.append(f"{f}:{line}: {fn}() is {n} lines (> {SHIM_MAX_LINES})")
    shim_problems = [f"{f}:{line}: {fn}() is {n} lines (> {SHIM_MAX_LINES})" for f, line, fn, n in shims]
    print(f"C shims (svp_acl_* definitions in src/capi) over {SHIM_MAX_LINES} lines: {len(shims)}; "
          f"capi includes below the runtime: {len(capi_includes)}")
    for p in capi_includes:
        print(("error: " if STRICT_CAPI_INCLUDES else "warning: ") + p)
    for p in shim_problems:
        print(("error: " if STRICT_SHIM_LENGTH else "warning: ") + p)
    for p in problems:
        print("error: " + p)
    if (problems or (STRICT_CAPI_INCLUDES and capi_includes) or (STRICT_SHIM_LENGTH and shim_problems)):
        return 1
    print("layers OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
