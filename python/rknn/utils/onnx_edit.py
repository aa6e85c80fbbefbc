"""rknn.utils.onnx_edit (seed 004): reshape/transpose an ONNX model's inputs and outputs
by transform equations such as 'a,b,c,d->a,c,d,b' or 'ab,c,d,qk[a=2,k=8]->aq,cd,1,kb',
writing the edited model (Reshape/Transpose nodes inserted, so it computes what the
original did on the transformed data) and, when given, the dataset transformed alike.

The equations are parsed here; the graph is rewritten by the compiler's C++ ONNX code
(src/compiler/onnx_io_edit.cpp) through the native module (Debian has no onnx Python
package). Deviations from the toolkit: docs/python.md.
"""
import logging
import os
import re

import numpy as np

from svp_acl import _svp_acl

_log = logging.getLogger("rknn")


class Transform:
    """One parsed equation for a tensor of shape `dims`: forward() maps data of the original
    shape to the new one, inverse() back; steps_* list the (op, values) that do it."""

    def __init__(self, equation, dims):
        self.equation = equation
        self.dims = [int(d) for d in dims]
        text = re.sub(r"\s+", "", equation)
        if text.count("->") != 1:
            raise ValueError("transform '{}': needs exactly one '->' between the original and the new shape"
                             .format(equation))
        left, right = text.split("->")
        sizes = {}
        m = re.fullmatch(r"([a-z1,]+)(?:\[([a-z0-9=,]*)\])?", left)
        if not m:
            raise ValueError("transform '{}': the left side may hold only a-z, '1', ',' and one [x=n,...] "
                             "assignment".format(equation))
        left, assigns = m.group(1), m.group(2)
        if assigns:
            for a in assigns.split(","):
                am = re.fullmatch(r"([a-z])=([0-9]+)", a)
                if not am or int(am.group(2)) < 1:
                    raise ValueError("transform '{}': assignment '{}' is not <letter>=<positive integer>"
                                     .format(equation, a))
                sizes[am.group(1)] = int(am.group(2))
        if not re.fullmatch(r"[a-z1,]+", right):
            raise ValueError("transform '{}': the right side may hold only a-z, '1' and ','".format(equation))
        lgroups, rgroups = left.split(","), right.split(",")
        if any(g == "" for g in lgroups + rgroups):
            raise ValueError("transform '{}': an empty dimension between commas".format(equation))
        if len(lgroups) != len(self.dims):
            raise ValueError("transform '{}': the left side has {} dimensions, the tensor {} (shape {})"
                             .format(equation, len(lgroups), len(self.dims), self.dims))
        if any(d < 0 for d in self.dims):
            raise NotImplementedError("transform '{}': the tensor has a dynamic shape {}; onnx_edit of dynamic "
                                      "shapes is not implemented yet in svp-acl".format(equation, self.dims))
        letters = []
        for g, d in zip(lgroups, self.dims):
            if g == "1":
                if d != 1:
                    raise ValueError("transform '{}': '1' stands for a dimension of {}".format(equation, d))
                continue
            if "1" in g:
                raise ValueError("transform '{}': '{}' mixes '1' with letters on the left side".format(equation, g))
            letters.extend(g)
            self._solve(g, d, sizes)
        if len(set(letters)) != len(letters):
            raise ValueError("transform '{}': a letter appears twice on the left side".format(equation))
        unknown = sorted(set(sizes) - set(letters))
        if unknown:
            raise ValueError("transform '{}': assigned letter(s) {} are not on the left side"
                             .format(equation, ", ".join(unknown)))
        right_letters = [c for c in right if c.isalpha()]
        if sorted(right_letters) != sorted(letters):
            missing = sorted(set(letters) - set(right_letters))
            extra = sorted(set(right_letters) - set(letters)) or sorted(
                c for c in set(right_letters) if right_letters.count(c) > 1)
            raise ValueError("transform '{}': every left letter must appear once on the right (missing: {}; "
                             "unknown or repeated: {})".format(equation, ",".join(missing) or "-",
                                                              ",".join(extra) or "-"))
        self.split_left = [sizes[c] for c in letters]
        self.split_right = [sizes[c] for c in right_letters]
        self.perm = [letters.index(c) for c in right_letters]
        self.inv_perm = [right_letters.index(c) for c in letters]
        self.new_shape = [int(np.prod([sizes[c] for c in g if c.isalpha()], dtype=np.int64)) for g in rgroups]

    def _solve(self, group, dim, sizes):
        free = [c for c in group if c not in sizes]
        known = int(np.prod([sizes[c] for c in group if c in sizes], dtype=np.int64))
        if len(free) > 1:
            raise ValueError("transform '{}': '{}' splits {} into several unknown sizes: assign all but one "
                             "(e.g. [{}=n])".format(self.equation, group, dim, free[0]))
        if len(free) == 1:
            if dim % known != 0:
                raise ValueError("transform '{}': '{}' = {} is not divisible by the assigned {}"
                                 .format(self.equation, group, dim, known))
            sizes[free[0]] = dim // known
        elif known != dim:
            raise ValueError("transform '{}': '{}' assigned {} but the dimension is {}"
                             .format(self.equation, group, known, dim))

    @staticmethod
    def _steps(start, split, perm, end):
        steps, cur = [], list(start)
        if split != cur:
            steps.append(("reshape", list(split)))
            cur = list(split)
        if perm != sorted(perm):
            steps.append(("transpose", list(perm)))
            cur = [cur[p] for p in perm]
        if end != cur:
            steps.append(("reshape", list(end)))
        return steps

    def steps_forward(self):
        return self._steps(self.dims, self.split_left, self.perm, self.new_shape)

    def steps_inverse(self):
        return self._steps(self.new_shape, self.split_right, self.inv_perm, self.dims)

    @staticmethod
    def _apply(x, steps):
        for op, values in steps:
            x = x.reshape(values) if op == "reshape" else x.transpose(values)
        return np.ascontiguousarray(x)

    def forward(self, x):
        if list(x.shape) != self.dims:
            raise ValueError("transform '{}': data of shape {}, the tensor's is {}"
                             .format(self.equation, list(x.shape), self.dims))
        return self._apply(x, self.steps_forward())

    def inverse(self, y):
        if list(y.shape) != self.new_shape:
            raise ValueError("transform '{}': data of shape {}, the transformed shape is {}"
                             .format(self.equation, list(y.shape), self.new_shape))
        return self._apply(y, self.steps_inverse())


def _report(message, *args):
    """The toolkit prints onnx_edit's log whatever RKNN(verbose) said: INFO on the rknn logger
    (its handler installed as RKNN() installs it, when no RKNN object was made yet)."""
    if not any(getattr(h, "_svp_rknn", False) for h in _log.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname).1s %(message)s"))
        handler._svp_rknn = True
        _log.addHandler(handler)
        _log.propagate = False
    level = _log.level
    if not _log.isEnabledFor(logging.INFO):
        _log.setLevel(logging.INFO)
    try:
        _log.info(message, *args)
    finally:
        _log.setLevel(level)


def _describe(steps, start):
    lines, cur = [], list(start)
    for op, values in steps:
        if op == "reshape":
            lines.append("  - Insert reshape op. {} reshape to {}.".format(cur, values))
            cur = list(values)
        else:
            nxt = [cur[p] for p in values]
            lines.append("  - Insert transpose op. {} transpose{} to {}.".format(cur, tuple(values), nxt))
            cur = nxt
    return "\n".join(lines)


def _transforms(io, table, output):
    known = {name: dims for name, is_out, dims in io if is_out == output}
    out = {}
    for name, equation in (table or {}).items():
        if name not in known:
            raise ValueError("{} '{}' is not one of the model's {} ({})".format(
                "output" if output else "input", name, "outputs" if output else "inputs", ", ".join(known)))
        out[name] = Transform(equation, known[name])
    return out


def _transform_dataset(dataset, export_path, inputs, transforms):
    base = os.path.splitext(os.path.basename(export_path))[0]
    folder = os.path.join(os.path.dirname(os.path.abspath(export_path)), base + "_dataset")
    os.makedirs(folder, exist_ok=True)
    root = os.path.dirname(os.path.abspath(dataset))
    lines_out = []
    with open(dataset) as f:
        lines = [l.split() for l in f if l.strip()]
    for k, paths in enumerate(lines):
        if len(paths) != len(inputs):
            raise ValueError("dataset {} line {}: {} path(s) for the model's {} input(s)".format(
                dataset, k + 1, len(paths), len(inputs)))
        row = []
        for path, name in zip(paths, inputs):
            full = path if os.path.isabs(path) else os.path.join(root, path)
            if not full.endswith(".npy"):
                raise NotImplementedError("dataset {}: '{}' is not a .npy file; onnx_edit transforms .npy items "
                                          "only (images: not implemented yet in svp-acl)".format(dataset, path))
            x = np.load(full)
            if name in transforms:
                x = transforms[name].forward(x)
            item = "{}_{}_{}.npy".format(k, len(row), re.sub(r"[^A-Za-z0-9_.-]", "_", name))
            np.save(os.path.join(folder, item), x)
            row.append(os.path.join(os.path.basename(folder), item))
        lines_out.append(" ".join(row))
    out = os.path.join(os.path.dirname(os.path.abspath(export_path)), base + "_dataset.txt")
    with open(out, "w") as f:
        f.write("\n".join(lines_out) + "\n")
    _report("onnx_edit: the transformed dataset is %s", out)
    return out


def onnx_edit(model, export_path, inputs_transform={}, outputs_transform={}, dataset=None):  # noqa: B006 (the toolkit's signature)
    """Writes `model` with its inputs and outputs transformed (seed 004) to export_path.
    Returns the transformed dataset list's path when `dataset` is given, else None
    (the dataset, .npy items only, is written beside export_path)."""
    io = _svp_acl.onnx_io(model)
    ins = _transforms(io, inputs_transform, False)
    outs = _transforms(io, outputs_transform, True)
    edits = []
    for name, t in ins.items():
        _report("For '%s':'%s'\nInput:'%s' was reset as shape-%s.(Origin shape is %s)\nInsert ops to transform "
                  "%s to %s:\n%s", name, t.equation, name, t.new_shape, t.dims, t.new_shape, t.dims,
                  _describe(t.steps_inverse(), t.new_shape))
        edits.append((name, False, t.new_shape, t.steps_inverse()))
    for name, t in outs.items():
        _report("For '%s':'%s'\nOutput:'%s' was reset as shape-%s.(Origin shape is %s)\nInsert ops to transform "
                  "%s to %s:\n%s", name, t.equation, name, t.new_shape, t.dims, t.dims, t.new_shape,
                  _describe(t.steps_forward(), t.dims))
        edits.append((name, True, t.new_shape, t.steps_forward()))
    new_dataset = None
    if dataset is not None:
        order = [name for name, is_out, _ in io if not is_out]
        new_dataset = _transform_dataset(dataset, export_path, order, ins)
    _svp_acl.onnx_edit_io(model, export_path, edits)
    return new_dataset
