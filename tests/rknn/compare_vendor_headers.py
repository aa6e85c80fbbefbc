#!/usr/bin/env python3
"""Compiles one program against Rockchip's RKNN headers and against this project's
include/rknn, and requires both to print the same: sizeof and every member offset of the
structs tests/rknn/rknn_api_layout_test.cpp checks, and the value of every macro and enum
constant the vendor's rknn_api.h, rknn_matmul_api.h and rknn_custom_op.h define.

The vendor's headers are not part of this repository (their text is Rockchip's): point
SVP_RKNN_VENDOR_INCLUDE at a folder holding them, e.g. rknpu2/runtime/Linux/librknn_api/include
of airockchip/rknn-toolkit2 at SDK 2.3.2. Without it the check is skipped (exit 77); the
layout test's recorded numbers still run everywhere.

  compare_vendor_headers.py REPO_ROOT WORK_DIR
"""
import os
import re
import subprocess
import sys

HEADERS = ["rknn_api.h", "rknn_matmul_api.h", "rknn_custom_op.h"]


def layout_items(root):
    text = ""
    tests = os.path.join(root, "tests", "rknn")
    for name in sorted(os.listdir(tests)):
        if name.endswith(".cpp"):
            with open(os.path.join(tests, name)) as f:
                text += f.read()
    items = []
    for m in re.finditer(r"\bsizeof\((\w+)\)", text):
        if m.group(1).startswith("rknn_") and ("s", m.group(1)) not in items:
            items.append(("s", m.group(1)))
    for m in re.finditer(r"\boffsetof\((\w+),\s*([\w.\[\]]+)\)", text):
        if m.group(1).startswith("rknn_") and ("o", m.group(1), m.group(2)) not in items:
            items.append(("o", m.group(1), m.group(2)))
    return items


def vendor_constants(vendor):
    names = []
    for h in HEADERS:
        with open(os.path.join(vendor, h)) as f:
            t = f.read()
        t = re.sub(r"/\*.*?\*/", "", t, flags=re.S)
        t = re.sub(r"//.*", "", t)
        for m in re.finditer(r"#define\s+(RKNN_\w+)[ \t]+\S", t):
            names.append(m.group(1))
        for body in re.findall(r"enum\s*\w*\s*\{(.*?)\}", t, flags=re.S):
            for part in body.split(","):
                n = part.split("=")[0].strip()
                if re.match(r"^[A-Za-z_]\w*$", n):
                    names.append(n)
    out = []
    for n in names:
        if n not in out and n != "RKNN_CUSTOM_OP_EXPORT":  # a visibility attribute, not a value
            out.append(n)
    return out


def program(items, constants):
    lines = ["#include <stddef.h>", "#include <stdio.h>"] + ['#include "%s"' % h for h in HEADERS]
    lines.append("int main(void) {")
    for it in items:
        if it[0] == "s":
            lines.append('  printf("sizeof %s %%zu\\n", sizeof(%s));' % (it[1], it[1]))
        else:
            lines.append('  printf("offsetof %s.%s %%zu\\n", offsetof(%s, %s));' % (it[1], it[2], it[1], it[2]))
    for n in constants:
        lines.append('  printf("%s %%lld\\n", (long long)(%s));' % (n, n))
    lines.append("  return 0;\n}")
    return "\n".join(lines) + "\n"


def build_and_run(work, include, tag):
    exe = os.path.join(work, "layout_" + tag)
    src = os.path.join(work, "layout.c")
    r = subprocess.run(["cc", "-std=gnu99", "-w", "-I", include, src, "-o", exe], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("compiling against %s failed:\n%s" % (include, r.stderr))
    return subprocess.run([exe], capture_output=True, text=True, check=True).stdout.splitlines()


def main():
    root, work = sys.argv[1], sys.argv[2]
    vendor = os.environ.get("SVP_RKNN_VENDOR_INCLUDE", "")
    if not vendor or not all(os.path.isfile(os.path.join(vendor, h)) for h in HEADERS):
        print("compare_vendor_headers: SVP_RKNN_VENDOR_INCLUDE does not hold %s: skipped" % ", ".join(HEADERS))
        return 77
    os.makedirs(work, exist_ok=True)
    items = layout_items(root)
    constants = vendor_constants(vendor)
    with open(os.path.join(work, "layout.c"), "w") as f:
        f.write(program(items, constants))
    theirs = build_and_run(work, vendor, "vendor")
    ours = build_and_run(work, os.path.join(root, "include", "rknn"), "ours")
    differ = [(a, b) for a, b in zip(theirs, ours) if a != b]
    for a, b in differ:
        print("vendor: %-60s ours: %s" % (a, b))
    if differ or len(theirs) != len(ours):
        print("compare_vendor_headers: %d of %d lines differ" % (len(differ), len(theirs)))
        return 1
    print("compare_vendor_headers OK: %d layout numbers and %d constants equal the vendor's"
          % (len(items), len(constants)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
