"""svp-acl from Python (docs/python.md).

``svp_acl.compile`` is the model compiler with svp_atc's options as keyword arguments;
``rknn.api.RKNN`` is rknn-toolkit2's class on the same compiler and the software NPU. The
native module ``svp_acl._svp_acl`` holds both. The SVP runtime from Python (load, execute
with numpy) is not implemented yet.
"""
import logging

from . import _svp_acl

__all__ = ["compile"]

_log = logging.getLogger("svp_acl")


def compile(model, **options):  # noqa: A001  (svp_atc's verb)
    """Compiles an ONNX model as ``svp_atc --model=<model> --<key>=<value> ...`` does and
    returns the model image as bytes (what svp_atc writes to <output>.om).

    Keyword names and values are svp_atc's flags (docs/compiler.md), e.g.
    ``compile("lenet.onnx", framework=5, soc_version="RK3588", compile_mode="float")``;
    ``framework`` defaults to 5 (ONNX). ``output`` is not taken: write the bytes yourself.
    A flag svp_atc does not know raises ValueError naming it (with the nearest known flag);
    one it does not implement raises NotImplementedError; the compiler's log lines go to
    the ``svp_acl`` logger at DEBUG.
    """
    if "output" in options:
        raise ValueError("compile: output is not taken (compile returns the bytes; write them to <output>.om)")
    options.setdefault("framework", 5)
    args = ["--model=" + str(model)]
    for key, value in options.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        args.append("--{}={}".format(key, value))
    image, log, ignored = _svp_acl.compile_atc(args)
    for flag in ignored:
        _log.warning("compile: --%s has no effect on the software NPU", flag)
    for line in log:
        _log.debug("compile: %s", line)
    return image
