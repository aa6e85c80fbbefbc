#!/usr/bin/env python3
"""Checks that the test files CMake compiles together (unity batches) cannot change each
other's meaning.

The test executables are unity builds (tests/CMakeLists.txt): CMake writes
<target>.dir/Unity/unity_N_cxx.cxx files that #include several test files, so their
anonymous namespaces become one. Two definitions of one type, constant or same-signature
function then fail to compile, which is loud. What would be silent is overloading: two
files each defining a namespace-scope function `f` with different parameters, where a
call in one file binds to the other file's `f` as a better match. This script reads the
generated batches and fails (exit 1) when two files of one batch define a namespace-scope
function of the same name, naming both files; rename one of them.

Namespace-scope definitions are recognised as function heads starting in column 0 (the
project's clang-format style does not indent namespaces). Operators are left out: an
overload per type is their purpose.

Usage: scripts/check_unity_batches.py BUILD_DIR [TARGET...]   (python3, standard library only)
"""
import glob
import os
import re
import sys

# A column-0 function head: optional template header and specifiers, a return type, the
# name, then "(". Keywords that begin other column-0 statements are excluded below.
HEAD = re.compile(
    r"^(?:template\s*<[^;{]*>\s*)?(?:(?:static|inline|constexpr|\[\[nodiscard\]\]|\[\[maybe_unused\]\])\s+)*"
    r"[A-Za-z_][\w:<>,\s\*&]*?[\s\*&]([A-Za-z_]\w*)\s*\(")
NOT_A_FUNCTION = ("TEST", "TEST_F", "TEST_P", "TYPED_TEST", "INSTANTIATE", "return", "namespace", "class",
                  "struct", "using", "typedef", "enum", "if", "for", "while", "switch", "case", "else", "#",
                  "//", "/*", "*", "}", "{", "union", "static_assert", "extern", "friend")


def function_names(path):
    names = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line or line[0] in " \t\n" or line.startswith(NOT_A_FUNCTION):
                continue
            m = HEAD.match(line)
            if m and m.group(1) != "operator" and not line.rstrip().endswith(";"):
                names.setdefault(m.group(1), lineno)
    return names


def batches(build_dir, targets):
    # CMake leaves the files of an earlier, larger batch count behind: with a
    # Ninja build, only the batches build.ninja compiles count.
    live = None
    ninja = os.path.join(build_dir, "build.ninja")
    if os.path.exists(ninja):
        with open(ninja, encoding="utf-8") as f:
            live = {os.path.abspath(os.path.join(build_dir, p)) for p in re.findall(r"(\S*/Unity/unity_\d+_cxx\.cxx)(?=[\s|]|$)", f.read())}
    for unity in sorted(glob.glob(os.path.join(build_dir, "**", "*.dir", "Unity", "unity_*_cxx.cxx"), recursive=True)):
        if live is not None and os.path.abspath(unity) not in live:
            continue
        target = os.path.basename(os.path.dirname(os.path.dirname(unity)))[: -len(".dir")]
        if targets and target not in targets:
            continue
        with open(unity, encoding="utf-8") as f:
            files = re.findall(r'^#include "([^"]+)"', f.read(), re.M)
        yield target, unity, files


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    build_dir, targets = argv[1], set(argv[2:])
    seen_batches = 0
    problems = []
    for target, unity, files in batches(build_dir, targets):
        seen_batches += 1
        owner = {}
        for path in files:
            for name, line in function_names(path).items():
                if name in owner and owner[name][0] != path:
                    problems.append(f"{target} ({os.path.basename(unity)}): `{name}` is defined in "
                                    f"{owner[name][0]}:{owner[name][1]} and {path}:{line}")
                else:
                    owner.setdefault(name, (path, line))
    if seen_batches == 0:
        print(f"no unity batches under {build_dir} (configure with -DSVP_ACL_UNITY_BUILD=ON)", file=sys.stderr)
        return 1
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} function name(s) shared by test files of one unity batch: a call may bind to "
              "the other file's overload; rename one of each pair", file=sys.stderr)
        return 1
    print(f"{seen_batches} unity batches: no namespace-scope function name defined in two files of one batch")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
