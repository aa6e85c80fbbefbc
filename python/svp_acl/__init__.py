"""svp-acl from Python (docs/python.md).

``svp_acl.compile`` is the model compiler with svp_atc's options as keyword arguments;
``rknn.api.RKNN`` is rknn-toolkit2's class on the same compiler and the software NPU. The
native module ``svp_acl._svp_acl`` holds both. ``svp_acl.Model`` and ``svp_acl.Stream`` are
the SVP runtime with numpy arrays in and out.
"""
import asyncio
import atexit
import logging
import os

from . import _svp_acl

__all__ = ["compile", "Model", "Stream", "Profiling"]

Stream = _svp_acl.Stream

# Drains the open streams while the interpreter can still run their callbacks.
atexit.register(_svp_acl._shutdown)


class Profiling(_svp_acl.Profiling):
    """Profiling on (file mode: svp_acl_prof_init/create_config/start) until ``stop()`` or
    the end of a ``with`` block; the data is a JOB directory below ``result_dir`` (an
    existing directory) that ``svp_prof`` turns into a report (docs/profiling.md)."""

    def __init__(self, result_dir, acl_api=True, task_time=True, aicpu=False):
        if not os.path.isdir(str(result_dir)):
            raise FileNotFoundError("svp_acl.Profiling: result_dir {!r} is not a directory".format(str(result_dir)))
        items = ((_svp_acl.PROF_ACL_API if acl_api else 0) | (_svp_acl.PROF_TASK_TIME if task_time else 0) |
                 (_svp_acl.PROF_AICPU if aicpu else 0))
        if items == 0:
            raise ValueError("svp_acl.Profiling: nothing to collect (acl_api, task_time and aicpu all off)")
        super().__init__(os.path.abspath(str(result_dir)), items)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class Model(_svp_acl.Model):
    """A loaded SVP model (.om bytes or file); see docs/python.md "The SVP runtime".

    ``inputs()`` / ``outputs()``: one dict per data tensor (name, shape, dtype, format,
    size). ``execute(inputs, batch=1)``: a list of numpy arrays in (the model's dtype and
    shape exactly; ``batch`` items stacked along the first axis), a list out.
    ``execute_async(inputs, stream, callback, batch=1)``: ``callback(outputs, error)``
    runs on the runtime's report thread once the execution on ``stream`` is done.
    ``async_execute(inputs, stream, batch=1)``: the same as an asyncio future.
    """

    def __init__(self, model, priority=None):
        if isinstance(model, (bytes, bytearray, memoryview)):
            image = bytes(model)
        elif isinstance(model, (str, os.PathLike)):
            with open(model, "rb") as f:
                image = f.read()
        else:
            raise TypeError("svp_acl.Model: model must be a file path or bytes, not {}".format(type(model).__name__))
        super().__init__(image, priority)

    def async_execute(self, inputs, stream, batch=1, resolution=None):
        """Starts the execution on ``stream``; returns an asyncio future of the outputs
        (its exception: RuntimeError with the runtime's message). Needs a running loop."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def settle(outputs, error):
            if future.done():
                return
            if error is None:
                future.set_result(outputs)
            else:
                future.set_exception(RuntimeError(error))

        def done(outputs, error):
            try:
                loop.call_soon_threadsafe(settle, outputs, error)
            except RuntimeError:
                pass  # the loop was closed meanwhile: nobody awaits the future any more

        self.execute_async(inputs, stream, done, batch, resolution)
        return future

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

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
