"""svp-acl from Python (docs/python.md).

``svp_acl.compile`` is the model compiler with svp_atc's options as keyword arguments;
``rknn.api.RKNN`` is rknn-toolkit2's class on the same compiler and the software NPU. The
native module ``svp_acl._svp_acl`` holds both. ``svp_acl.Model`` and ``svp_acl.Stream`` are
the SVP runtime with numpy arrays in and out.
"""
import asyncio
import atexit
import json
import logging
import os

import numpy as np

from . import _svp_acl

__all__ = ["compile", "Model", "Stream", "Profiling", "Dump", "read_aipp_config", "read_dump"]

read_aipp_config = _svp_acl.read_aipp_config

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

    def execute(self, inputs, batch=1, resolution=None, aipp=None):
        """Runs the model; ``aipp``: the parameters of its dynamic-AIPP input (below)."""
        return super().execute(inputs, batch, resolution, _aipp_params(aipp, self))

    def execute_async(self, inputs, stream, callback, batch=1, resolution=None, aipp=None):
        return super().execute_async(inputs, stream, callback, batch, resolution, _aipp_params(aipp, self))

    def async_execute(self, inputs, stream, batch=1, resolution=None, aipp=None):
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

        self.execute_async(inputs, stream, done, batch, resolution, aipp)
        return future

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

def _aipp_text(key, value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str, np.integer, np.floating)):
        return str(value)
    raise TypeError("aipp: {} = {!r} is not a number, bool or string".format(key, value))


def _aipp_params(aipp, model):
    """aipp= as the binding takes it: {data input position: {key: text}}. One mapping of
    [aipp_op] keys is for the model's only dynamic-AIPP input; {position: mapping} names it."""
    if aipp is None:
        return {}
    if isinstance(aipp, (str, os.PathLike)):
        aipp = read_aipp_config(str(aipp))
    if not isinstance(aipp, dict):
        raise TypeError("aipp must be a dict of [aipp_op] keys, a {input position: dict} or a config file path, "
                        "not {}".format(type(aipp).__name__))
    if aipp and all(isinstance(k, int) for k in aipp):
        per_input = aipp
    else:
        dynamic = [i for i, t in enumerate(model.inputs()) if t.get("aipp") == "dynamic"]
        if len(dynamic) != 1:
            raise ValueError("aipp: the model has {} dynamic-AIPP inputs; give {{input position: parameters}}".format(
                len(dynamic)) if dynamic else "aipp: the model has no dynamic-AIPP input")
        per_input = {dynamic[0]: aipp}
    out = {}
    for i, params in per_input.items():
        if isinstance(params, (str, os.PathLike)):
            params = read_aipp_config(str(params))
        if not isinstance(params, dict):
            raise TypeError("aipp[{}] must be a dict of [aipp_op] keys".format(i))
        out[i] = {str(k): _aipp_text(k, v) for k, v in params.items()}
    return out


class Dump:
    """The model dump (docs/runtime.md "Model dump") while the ``with`` block runs: every
    model **loaded inside it** writes its layers' tensors to ``dump_path`` at each execution
    (``steps`` "0|5|10-20" selects executions; ``mode`` output / input / all; ``models``
    None for every layer of every model, or {model name: [layer, ...] or None}). Leaving
    the block waits until the files are written; ``tensors()`` then reads them as numpy."""

    def __init__(self, dump_path, models=None, steps=None, mode="output"):
        if not os.path.isdir(str(dump_path)):
            raise FileNotFoundError("svp_acl.Dump: dump_path {!r} is not a directory".format(str(dump_path)))
        self.dump_path = os.path.abspath(str(dump_path))
        dump = {"dump_path": self.dump_path, "dump_mode": mode, "dump_list": []}
        for name, layers in (models or {}).items():
            entry = {"model_name": name}
            if layers:
                entry["layer"] = list(layers)
            dump["dump_list"].append(entry)
        if steps is not None:
            dump["dump_step"] = str(steps)
        self._config = os.path.join(self.dump_path, "svp_acl_dump.json")
        with open(self._config, "w") as f:
            json.dump({"dump": dump}, f, indent=1)
        self._active = False

    def __enter__(self):
        _svp_acl._dump_start(self._config)
        self._active = True
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        """Ends the dump (svp_acl_mdl_finalize_dump: returns once every tensor is on disk)."""
        if self._active:
            self._active = False
            _svp_acl._dump_stop()

    def tensors(self, model_name=None):
        """The dumped tensors (read_dump)."""
        return read_dump(self.dump_path, model_name)


def read_dump(dump_path, model_name=None):
    """A dump directory's tensors: index.jsonl's records (model, execution, layer, op, io,
    index, tensor, dtype, dims, ...) in order, each with ``array`` (the .npy's contents; None
    for a tensor that never existed in memory, whose record has a ``note``)."""
    names = [model_name] if model_name else sorted(
        d for d in os.listdir(dump_path) if os.path.isfile(os.path.join(dump_path, d, "index.jsonl")))
    records = []
    for name in names:
        folder = os.path.join(dump_path, name)
        with open(os.path.join(folder, "index.jsonl")) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    r["array"] = np.load(os.path.join(folder, r["file"])) if r.get("file") else None
                    records.append(r)
    return records


_log = logging.getLogger("svp_acl")


def compile(model, **options):  # noqa: A001  (svp_atc's verb)
    """Compiles an ONNX model as ``svp_atc --model=<model> --<key>=<value> ...`` does and
    returns the model image as bytes (what svp_atc writes to <output>.om).

    Keyword names and values are svp_atc's flags (docs/compiler.md), e.g.
    ``compile("lenet.onnx", framework=5, soc_version="RK3588", compile_mode="float")``;
    ``framework`` defaults to 5 (ONNX). ``output="dir/name"`` also writes ``dir/name.om``, as
    svp_atc does. A flag svp_atc does not know raises ValueError naming it (with the nearest
    known flag); one it does not implement raises NotImplementedError; the compiler's log
    lines go to the ``svp_acl`` logger at DEBUG, and calibration and ``accuracy_report``
    progress at INFO as it happens (about every tenth of the work). ``progress=callable``
    receives ``(stage, done, total)`` instead, for every step.
    """
    output = options.pop("output", None)
    progress = options.pop("progress", None)
    if progress is not None and not callable(progress):
        raise TypeError("compile: progress must be a callable (stage, done, total), not {!r}".format(progress))
    options.setdefault("framework", 5)
    args = ["--model=" + str(model)]
    for key, value in options.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        args.append("--{}={}".format(key, value))
    image, log, ignored = _svp_acl.compile_atc(args, progress if progress is not None else _log_progress())
    for flag in ignored:
        _log.warning("compile: --%s has no effect on the software NPU", flag)
    for line in log:
        _log.debug("compile: %s", line)
    if output is not None:
        path = str(output) + ".om"
        with open(path, "wb") as f:
            f.write(image)
        _log.info("compile: wrote %s (%d bytes)", path, len(image))
    return image


def _log_progress():
    """A progress callback that logs each stage at INFO when it starts, about every tenth of
    the way, and when it ends."""
    last = {}

    def report(stage, done, total):
        step = max(1, total // 10)
        if done == total or done == 1 or done - last.get(stage, 0) >= step:
            last[stage] = done
            _log.info("compile: %s %d/%d", stage, done, total)
    return report
