"""rknn-toolkit2's RKNN class on svp-acl (docs/python.md).

Argument names and defaults follow rknn-toolkit2 2.x (its user guide's API chapter and the
model zoo's convert.py scripts). Models are built by svp-acl's compiler through
rknn_convert's own YAML mapping (tools/rknn_convert: this class writes the YAML its
arguments amount to, so the two front-ends cannot drift apart) and run on the software NPU
through librknnrt's C API. Calls return 0 / -1 as the toolkit's do, logging why on -1;
inference raises, as the toolkit's error handler ends a failed inference with an exception.
Arguments this implementation does not support are refused naming them, never ignored.
"""
import json
import logging
import os
import re
import sys
import tempfile

import numpy as np

from svp_acl import _svp_acl

from rknn.api import codegen as _codegen
from rknn.api import hybrid as _hybrid

_log = logging.getLogger("rknn")

# config(): the toolkit's arguments and defaults. _CONFIG_MAPPED go to rknn_convert's YAML
# `configs` (which checks their values); _CONFIG_UNSUPPORTED are accepted at their default
# only.
_CONFIG_MAPPED = {
    "mean_values": None, "std_values": None, "quantized_dtype": "w8a8", "quantized_algorithm": "normal",
    "quantized_method": "channel", "target_platform": None, "quant_img_RGB2BGR": False,
    "optimization_level": 3, "single_core_mode": False, "model_pruning": False,
    "quantize_weight": False, "compress_weight": False, "dynamic_input": None, "sparse_infer": False,
}
_CONFIG_UNSUPPORTED = {
    "quantized_hybrid_level": 0, "float_dtype": "float16", "custom_string": None, "remove_weight": False,
    "inputs_yuv_fmt": None, "op_target": None, "remove_reshape": False,
    "enable_flash_attention": False, "auto_hybrid_cos_thresh": 0.98, "auto_hybrid_euc_thresh": None,
}
# The toolkit's platform when config() names none.
_DEFAULT_PLATFORM = "rk3566"

# What the YAML mapping's messages call an argument, and what this API calls it.
_KEY_NAMES = [
    (r"models\.configs\.(\w+)", r"config(\1)"),
    (r"models\.subgraphs\.(\w+)", r"load_onnx(\1)"),
    (r"models\.model_file_path", "load_onnx(model)"),
    (r"models\.dataset", "build(dataset)"),
    (r"models\.quantize", "build(do_quantization)"),
    (r" \(line \d+\)", ""),
]


def _api_names(message):
    for pattern, name in _KEY_NAMES:
        message = re.sub(pattern, name, message)
    if "--input_shape" in message:
        message += " (in load_onnx: inputs and input_size_list)"
    return message


class _Refused(Exception):
    """A call's arguments or state refused: the call logs the message and returns -1."""


class _SignatureError(TypeError):
    """An argument the toolkit's signature does not have: raised, as Python raises it for the
    toolkit's own explicitly declared parameters."""


def _returns_code(method):
    """Toolkit calls that return 0 / -1: a refusal or failure is logged, not raised."""
    def call(self, *args, **kwargs):
        try:
            method(self, *args, **kwargs)
        except _SignatureError:
            raise
        except (_Refused, ValueError, TypeError, NotImplementedError, OSError, RuntimeError) as e:
            _log.error("%s: %s", method.__name__, _api_names(str(e)))
            return -1
        return 0
    call.__name__ = method.__name__
    call.__doc__ = method.__doc__
    return call


def _non_default(kwargs, defaults):
    return sorted(k for k, v in kwargs.items() if k in defaults and v != defaults[k])


class RKNN:
    """rknn-toolkit2's RKNN object: build a model from ONNX, export / load it, run it."""

    # init_runtime(core_mask=...): the toolkit's constants (rknn_core_mask's values).
    NPU_CORE_AUTO = 0
    NPU_CORE_0 = 1
    NPU_CORE_1 = 2
    NPU_CORE_2 = 4
    NPU_CORE_0_1 = 3
    NPU_CORE_0_1_2 = 7
    NPU_CORE_ALL = 0xFFFF

    def __init__(self, verbose=False, verbose_file=None):
        self.verbose = bool(verbose)
        self._file_log = _setup_logging(self.verbose, verbose_file)
        self._config = {}
        self._platform = None  # the configured platform's device profile name
        self._onnx = None
        self._model = None      # the built or loaded model image
        self._built = None      # build()'s (do_quantization, dataset)
        self._qdq = None        # the built int8 model's quantization as QDQ ONNX bytes (export_qdq)
        self._qdq_error = ""    # why an int8 build has none
        self._batch_shapes = None  # build(rknn_batch_size > 1): the inputs' batched shapes
        self.accuracy_report = None  # accuracy_analysis()'s rows (svp-acl's addition)
        self._runtime = None
        self._shape_sets = []  # the loaded model's dynamic_input sets (NHWC for 4-D inputs)
        self._perf_debug = False
        self._released = False

    # ----------------------------------------------------------------- conversion
    @_returns_code
    def config(self, **kwargs):
        """Model settings: mean/std, target platform and quantization (toolkit defaults)."""
        self._live()
        unknown = sorted(set(kwargs) - set(_CONFIG_MAPPED) - set(_CONFIG_UNSUPPORTED))
        if unknown:
            raise _SignatureError("config() got unexpected keyword argument(s) {} (rknn-toolkit2's config() has no "
                                  "such argument)".format(", ".join(unknown)))
        unsupported = _non_default({k: v for k, v in kwargs.items() if not isinstance(v, np.ndarray)}, _CONFIG_UNSUPPORTED)
        if unsupported:
            raise _Refused("{} not implemented yet in svp-acl (leave at the default; docs/python.md)".format(
                ", ".join("{}={!r}".format(k, kwargs[k]) for k in unsupported)))
        platform = kwargs.get("target_platform")
        if platform is None:
            _log.warning("config: target_platform is not set, using %s as rknn-toolkit2 does", _DEFAULT_PLATFORM)
            platform = _DEFAULT_PLATFORM
        if not isinstance(platform, str):
            raise _Refused("target_platform must be a platform name such as 'rk3588', not {!r}".format(platform))
        self._platform = _svp_acl.rknn_platform(platform)
        plain = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        self._config = {k: v for k, v in plain.items() if k in _CONFIG_MAPPED and v != _CONFIG_MAPPED[k]}
        self._config.pop("target_platform", None)

    @_returns_code
    def load_onnx(self, model, inputs=None, input_size_list=None, input_initial_val=None, outputs=None):
        """The ONNX model to build; inputs + input_size_list fix input shapes."""
        self._live()
        if input_initial_val is not None:
            raise _Refused("input_initial_val is not implemented yet in svp-acl")
        if not isinstance(model, (str, os.PathLike)) or not os.path.isfile(model):
            raise _Refused("model {!r} is not an ONNX file".format(model))
        self._onnx = {"model": os.path.abspath(model), "inputs": inputs, "input_size_list": input_size_list,
                      "outputs": outputs}
        self._model = None
        self._built = None  # accuracy_analysis needs a build of this model
        self._qdq = None
        self._qdq_error = ""

    @_returns_code
    def build(self, do_quantization=True, dataset=None, rknn_batch_size=None, auto_hybrid=False):
        """Compiles the loaded ONNX model (int8 with a dataset list file, or float)."""
        self._live()
        if self._onnx is None:
            raise _Refused("no model: call load_onnx() first")
        batch = 1 if rknn_batch_size is None else rknn_batch_size
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise _Refused("rknn_batch_size must be a positive integer, not {!r}".format(rknn_batch_size))
        if auto_hybrid:
            raise _Refused("auto_hybrid=True is not implemented yet in svp-acl")
        if self._platform is None:
            self._platform = _svp_acl.rknn_platform(_DEFAULT_PLATFORM)
        self._batch_shapes = self._batched_shapes(batch) if batch > 1 else None
        # An int8 build also keeps its quantization as a QDQ ONNX model (export_qdq): the same
        # compile, so exactly the encodings the model holds.
        image, warnings, log, qdq, self._qdq_error = self._convert(bool(do_quantization), dataset,
                                                                   qdq=bool(do_quantization))
        self._built = (bool(do_quantization), dataset)
        self._qdq = qdq or None
        for w in warnings:
            _log.warning("build: %s", _api_names(w))
        for line in log:
            # config(model_pruning=True)'s result is shown as the toolkit shows it.
            pruning = line.startswith("model_pruning results:") or line.startswith("Weight: -")
            pruning = pruning or (line.startswith("sparse_infer:") and self.verbose)
            (_log.info if pruning else _log.debug)("build: %s", line)
        self._model = image

    def _batched_shapes(self, batch):
        """rknn_batch_size: every input's shape with `batch` items, as the one shape set of
        configs.dynamic_input (a batch gear: the runtime runs `batch` items per inference)."""
        if self._config.get("dynamic_input"):
            raise _Refused("rknn_batch_size={} together with config(dynamic_input) is not implemented yet in svp-acl"
                           .format(batch))
        if self._onnx["input_size_list"] is not None:
            shapes = [list(s) for s in self._onnx["input_size_list"]]
            names = list(self._onnx["inputs"] or ["input {}".format(i) for i in range(len(shapes))])
        else:
            declared = _svp_acl.onnx_inputs(self._onnx["model"])
            names, shapes = [n for n, _ in declared], [list(d) for _, d in declared]
        out = []
        for name, shape in zip(names, shapes):
            if not shape or any(d < 1 for d in shape[1:]):
                raise _Refused("rknn_batch_size: input {} has no fixed shape ({}): give it with load_onnx(inputs=..., "
                               "input_size_list=...)".format(name, shape or "none declared"))
            if shape[0] not in (1, -1):
                raise _Refused("rknn_batch_size: input {} already has batch {} (shape {}); rknn_batch_size needs "
                               "batch 1".format(name, shape[0], shape))
            out.append([batch] + shape[1:])
        return out

    @_returns_code
    def hybrid_quantization_step1(self, dataset=None, rknn_batch_size=-1, proposal=False, proposal_dataset_size=1):
        """Quantizes the loaded ONNX model on `dataset` and writes {model}.model, {model}.data
        and {model}.quantization.cfg in the working directory (hybrid.py); with proposal=True
        the cfg's custom_quantize_layers lists the layers whose single cosine is worst."""
        self._live()
        if self._onnx is None:
            raise _Refused("no model: call load_onnx() first")
        if dataset is None:
            raise _Refused("dataset is required: the list file of calibration inputs, as for build()")
        batch = 1 if rknn_batch_size in (-1, None) else rknn_batch_size
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise _Refused("rknn_batch_size must be -1 or a positive integer, not {!r}".format(rknn_batch_size))
        if isinstance(proposal_dataset_size, bool) or not isinstance(proposal_dataset_size, int) or \
                proposal_dataset_size < 1:
            raise _Refused("proposal_dataset_size must be a positive integer, not {!r}".format(proposal_dataset_size))
        if self._platform is None:
            self._platform = _svp_acl.rknn_platform(_DEFAULT_PLATFORM)
        self._batch_shapes = self._batched_shapes(batch) if batch > 1 else None
        image, warnings = self._convert(True, dataset)[:2]
        for w in warnings:
            _log.warning("hybrid_quantization_step1: %s", _api_names(w))
        layers = self._proposal(image, dataset, proposal_dataset_size) if proposal else []
        name = os.path.splitext(os.path.basename(self._onnx["model"]))[0]
        recipe = {"format": _hybrid.RECIPE_FORMAT, "onnx": self._onnx, "config": self._config,
                  "platform": self._platform, "dataset": os.path.abspath(dataset), "batch_shapes": self._batch_shapes}
        with open(name + ".model", "w") as f:
            json.dump(recipe, f, indent=1)
        with open(name + ".data", "wb") as f:
            f.write(image)
        _hybrid.write_cfg(name + ".quantization.cfg", layers, _hybrid.quantize_parameters(image))
        _log.info("hybrid_quantization_step1: wrote %s.model, %s.data, %s.quantization.cfg%s", name, name, name,
                  " ({} layer(s) proposed)".format(len(layers)) if proposal else "")

    def _proposal(self, image, dataset, count):
        """The per-layer accuracy analysis on the dataset's first `count` items (.npy / .bin:
        one path per input on a line), its worst layers (hybrid.propose)."""
        probe = _svp_acl.Runtime(image)
        try:
            names = [a["name"] for a in probe.inputs()]
        finally:
            probe.close()
        base = os.path.dirname(os.path.abspath(dataset))
        with open(dataset) as f:
            items = [line.split() for line in f if line.strip()][:count]
        for line in items:
            if len(line) != len(names):
                raise _Refused("dataset line {!r} gives {} path(s); the model has {} input(s)".format(
                    " ".join(line), len(line), len(names)))
            odd = [p for p in line if not p.endswith((".npy", ".bin"))]
            if odd:
                raise _Refused("proposal=True with image files in the dataset ({}) is not implemented yet in svp-acl: "
                               "list .npy items".format(odd[0]))
        with tempfile.TemporaryDirectory(prefix="svp_hybrid_") as tmp:
            lists = []
            for i, name in enumerate(names):
                listed = os.path.join(tmp, "input{}.txt".format(i))
                with open(listed, "w") as f:
                    f.write("".join(os.path.join(base, line[i]) + "\n" for line in items))
                lists.append("{}:{}".format(name, listed))
            report = self._convert(True, dataset, ";".join(lists))
        return _hybrid.propose(_report_rows(report["csv"]))

    @_returns_code
    def hybrid_quantization_step2(self, model_input, data_input, model_quantization_cfg):
        """Builds the model of step1's files with the cfg's custom_quantize_layers raised:
        int16 as A16W8 (--high_precision_layer), float16/float32 as float32 layers."""
        self._live()
        with open(model_input) as f:
            try:
                recipe = json.load(f)
            except ValueError:
                recipe = None
        if not isinstance(recipe, dict) or recipe.get("format") != _hybrid.RECIPE_FORMAT:
            raise _Refused("{} is not a .model file written by svp-acl's hybrid_quantization_step1".format(model_input))
        with open(data_input, "rb") as f:
            step1_image = f.read()
        try:
            step1_params = _hybrid.quantize_parameters(step1_image)
        except ValueError as e:
            raise _Refused("{} is not the .data file of hybrid_quantization_step1 ({})".format(data_input, e))
        high, floats = _hybrid.read_cfg(model_quantization_cfg, step1_params)
        self._onnx, self._config, self._platform = recipe["onnx"], recipe["config"], recipe["platform"]
        self._batch_shapes = recipe["batch_shapes"]
        try:
            image, warnings, _, qdq, self._qdq_error = self._convert(True, recipe["dataset"], layers=(high, floats),
                                                                     qdq=True)
        except (ValueError, RuntimeError) as e:
            message = str(e).replace("--high_precision_layer names", "custom_quantize_layers names")
            message = re.sub(r'float layer "(.*?)" is not', r'custom_quantize_layers names "\1", which is not', message)
            raise _Refused("{}: {}".format(model_quantization_cfg, message))
        for w in warnings:
            _log.warning("hybrid_quantization_step2: %s", _api_names(w))
        self._model = image
        self._qdq = qdq or None
        self._built = (True, recipe["dataset"])
        self._close_runtime()
        _log.info("hybrid_quantization_step2: built with %d layer(s) int16 and %d float", len(high), len(floats))

    def _convert(self, quantize, dataset, accuracy_inputs=None, layers=((), ()), qdq=False):
        models = {"name": "model", "platform": "onnx", "model_file_path": self._onnx["model"], "quantize": quantize}
        subgraphs = {k: self._onnx[k] for k in ("inputs", "input_size_list", "outputs") if self._onnx[k] is not None}
        configs = dict(self._config)
        if self._batch_shapes:
            configs["dynamic_input"] = [self._batch_shapes]  # the shapes come from here, not input_size_list
            subgraphs.pop("input_size_list", None)
        if subgraphs:
            models["subgraphs"] = subgraphs
        if dataset is not None:
            models["dataset"] = os.path.abspath(dataset)
        if configs:
            models["configs"] = configs
        caller = "rknn.api.RKNN.build(do_quantization={}{})".format(
            quantize, ", rknn_batch_size={}".format(self._batch_shapes[0][0]) if self._batch_shapes else "")
        # JSON is YAML: rknn_convert's reader takes the file as its own .yml.
        with tempfile.TemporaryDirectory(prefix="svp_rknn_") as tmp:
            yml = os.path.join(tmp, "model_config.yml")
            with open(yml, "w") as f:
                json.dump({"models": models}, f, indent=1)
            if accuracy_inputs is not None:
                return _svp_acl.analyse_rknn(yml, self._platform, "rknn.api.RKNN.accuracy_analysis", accuracy_inputs)
            return _svp_acl.build_rknn(yml, self._platform, caller, list(layers[0]), list(layers[1]), qdq)

    @_returns_code
    def export_rknn(self, export_path, cpp_gen_cfg=None):
        """Writes the built model (an svp-acl image that librknnrt loads) to export_path."""
        self._live()
        if cpp_gen_cfg:
            raise _Refused("cpp_gen_cfg (code generation) is not implemented yet in svp-acl")
        if self._model is None:
            raise _Refused("no model: call build() or load_rknn() first")
        with open(export_path, "wb") as f:
            f.write(self._model)

    @_returns_code
    def export_qdq(self, export_path):
        """svp-acl's addition: writes the quantization of the last build(do_quantization=True)
        (or hybrid_quantization_step2) as a QDQ ONNX model, as svp_atc --export_qdq does:
        onnxruntime runs it with the very scales and zero points the built model holds, the
        reference for the int8 model's task answers (docs/python.md)."""
        self._live()
        if self._qdq is None and self._qdq_error:
            raise _Refused("the built model has no QDQ form: {}".format(self._qdq_error))
        if self._qdq is None:
            raise _Refused("no int8 build: export_qdq writes the quantization of build(do_quantization=True) "
                           "(a float build or a model from load_rknn has none)")
        with open(export_path, "wb") as f:
            f.write(self._qdq)

    @_returns_code
    def export_encrypted_rknn_model(self, input_model, output_model=None, crypt_level=1):
        """Encrypts an exported model file (AES-GCM; librknnrt loads it like the plain one).
        output_model None: <input without .rknn>.crypt.rknn beside the input."""
        self._live()
        if isinstance(crypt_level, bool) or crypt_level not in (1, 2, 3):
            raise _Refused("crypt_level={!r} is not one of 1, 2, 3".format(crypt_level))
        if output_model is None:
            base = input_model[:-len(".rknn")] if input_model.endswith(".rknn") else input_model
            output_model = base + ".crypt.rknn"
        with open(input_model, "rb") as f:
            data = f.read()
        if data[:4] == b"RKNN":
            raise _Refused("{} is a Rockchip .rknn file (a closed format svp-acl cannot read): export it with "
                           "svp-acl first".format(input_model))
        encrypted = _svp_acl.encrypt_rknn(data, crypt_level)
        with open(output_model, "wb") as f:
            f.write(encrypted)
        _log.info("export_encrypted_rknn_model: %s -> %s (crypt_level %d)", input_model, output_model, crypt_level)

    @_returns_code
    def codegen(self, output_path, inputs=None, overwrite=False):
        """Writes a C project (CMakeLists.txt, main.c on rknn_api.h, model.rknn, the inputs as
        float32 .bin files) that runs the built or loaded model with librknnrt."""
        self._live()
        if self._model is None:
            raise _Refused("no model: call build() or load_rknn() first")
        probe = _svp_acl.Runtime(self._model)
        try:
            attrs, n_outputs = probe.inputs(), len(probe.outputs())
        finally:
            probe.close()
        _codegen.write_project(output_path, self._model, attrs, n_outputs, inputs, overwrite)
        _log.info("codegen: wrote %s (cmake -S %s -B build && cmake --build build)", output_path, output_path)

    @_returns_code
    def load_rknn(self, path):
        """A model file exported by svp-acl (rknn.api or rknn_convert)."""
        self._live()
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] == b"RKNN":
            raise _Refused("{} is a Rockchip .rknn file (a closed format svp-acl cannot read): rebuild it from the "
                           "ONNX model with load_onnx() + build(), or with rknn_convert".format(path))
        self._model = data
        self._built = None
        self._qdq = None
        self._qdq_error = ""
        self._close_runtime()

    @_returns_code
    def accuracy_analysis(self, inputs, output_dir="./snapshot", target=None, device_id=None):
        """Per-layer error of the quantized model against the float one on `inputs` (one
        .npy file or numpy array per model input): svp_atc's --accuracy_report, written as
        the toolkit's snapshot folder (error_analysis.txt, golden/, simulator/)."""
        self._live()
        if target is not None or device_id is not None:
            raise _Refused("target/device_id: svp-acl analyses on this host's software NPU only: pass target=None")
        if self._onnx is None or self._built is None:
            raise _Refused("no built model: call load_onnx() and build() first (the analysis compiles the ONNX model "
                           "again; a model from load_rknn() cannot be analysed)")
        quantize, dataset = self._built
        if not quantize:
            raise _Refused("the model was built with do_quantization=False: the analysis compares the quantized "
                           "model with the float one (build(do_quantization=True, dataset=...))")
        probe = _svp_acl.Runtime(self._model)
        try:
            attrs = probe.inputs()
        finally:
            probe.close()
        arrays = _accuracy_inputs(inputs, attrs)
        os.makedirs(output_dir, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="svp_accuracy_") as tmp:
            lists = []
            for i, (attr, array) in enumerate(zip(attrs, arrays)):
                item = os.path.join(tmp, "input{}.npy".format(i))
                np.save(item, array)
                listed = os.path.join(tmp, "input{}.txt".format(i))
                with open(listed, "w") as f:
                    f.write(item + "\n")
                lists.append("{}:{}".format(attr["name"], listed))
            report = self._convert(True, dataset, ";".join(lists))
        rows = _report_rows(report["csv"])
        self.accuracy_report = rows
        for line in report["summary"]:
            _log.info("accuracy_analysis: %s", line)
        _write_snapshot(output_dir, rows, report["summary"], report["command_line"], self._snapshot_outputs(arrays))

    def _snapshot_outputs(self, arrays):
        """The model outputs of the float build (golden) and of the quantized one (simulator)."""
        golden_image = self._convert(False, None)[0]
        outputs = {}
        for folder, image in (("golden", golden_image), ("simulator", self._model)):
            runtime = _svp_acl.Runtime(image)
            try:
                fmts = [_svp_acl.RKNN_TENSOR_NCHW] * len(arrays)
                outputs[folder] = list(zip([a["name"] for a in runtime.outputs()],
                                           runtime.run(arrays, fmts, [False] * len(arrays))))
            finally:
                runtime.close()
        return outputs

    # ----------------------------------------------------------------- runtime
    @_returns_code
    def init_runtime(self, target=None, target_sub_class=None, device_id=None, perf_debug=False, eval_mem=False,
                     async_mode=False, core_mask=NPU_CORE_AUTO, fallback_prior_device="cpu"):
        """Loads the model on the software NPU (target None: the model's platform, simulated)."""
        self._live()
        if target is not None:
            raise _Refused("target={!r} asks for a board over adb; svp-acl runs the model on this host's software "
                           "NPU: pass target=None".format(target))
        refused = [name for name, on in (("target_sub_class", target_sub_class is not None),
                                         ("device_id", device_id is not None),
                                         ("async_mode", bool(async_mode)),
                                         ("fallback_prior_device", fallback_prior_device != "cpu")) if on]
        if refused:
            raise _Refused("{} not implemented yet in svp-acl (docs/python.md)".format(", ".join(refused)))
        if core_mask not in (self.NPU_CORE_AUTO, self.NPU_CORE_0, self.NPU_CORE_1, self.NPU_CORE_2,
                             self.NPU_CORE_0_1, self.NPU_CORE_0_1_2, self.NPU_CORE_ALL):
            raise _Refused("core_mask={!r} is not one of RKNN.NPU_CORE_*".format(core_mask))
        if self._model is None:
            raise _Refused("no model: call build() or load_rknn() first")
        self._close_runtime()
        flags = _svp_acl.RKNN_FLAG_COLLECT_PERF_MASK if perf_debug else 0
        runtime = _svp_acl.Runtime(self._model, flags)
        if core_mask != self.NPU_CORE_AUTO:
            try:
                runtime.set_core_mask(core_mask)
            except RuntimeError:
                runtime.close()
                raise
        self._runtime = runtime
        self._shape_sets = runtime.shape_sets()
        self._perf_debug = bool(perf_debug)
        self._eval_mem = bool(eval_mem)

    def inference(self, inputs, data_format=None, inputs_pass_through=None, get_frame_id=False):
        """Runs the model: a list of numpy arrays in, a list of float32 arrays out."""
        self._live()
        if self._runtime is None:
            raise RuntimeError("inference: call init_runtime() first")
        if get_frame_id:
            raise NotImplementedError("inference: get_frame_id=True is not implemented yet in svp-acl")
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if not isinstance(inputs, (list, tuple)):
            raise TypeError("inference: inputs must be a list of numpy arrays, not {}".format(type(inputs).__name__))
        attrs = self._runtime.inputs()
        if len(inputs) != len(attrs):
            raise ValueError("inference: the model has {} input(s), {} given".format(len(attrs), len(inputs)))
        formats = _per_input(data_format, len(attrs), "data_format")
        passes = _per_input(inputs_pass_through, len(attrs), "inputs_pass_through")
        if len(self._shape_sets) > 1:
            self._follow_shape_set(inputs, formats, passes)
            attrs = self._runtime.inputs()
        arrays, fmts = [], []
        for i, (a, attr) in enumerate(zip(inputs, attrs)):
            array, fmt = _prepare_input(i, a, attr, formats[i], bool(passes[i]))
            arrays.append(array)
            fmts.append(fmt)
        return self._runtime.run(arrays, fmts, [bool(p) for p in passes])

    def _follow_shape_set(self, inputs, formats, passes):
        """Dynamic-shape models (config(dynamic_input)): the shape set the arrays have is
        selected with librknnrt's rknn_set_input_shapes when it is not the current one."""
        def matches(shape_set):
            for array, dims, fmt, passed in zip(inputs, shape_set, formats, passes):
                if not isinstance(array, np.ndarray):
                    return True  # _prepare_input names the problem
                dims = list(dims)
                if len(dims) == 4 and (fmt == "nchw" or passed):
                    dims = [dims[0], dims[3], dims[1], dims[2]]
                if list(array.shape) != dims and [1] + list(array.shape) != dims:
                    return False
            return True

        if matches([a["dims"] for a in self._runtime.inputs()]):
            return
        for shape_set in self._shape_sets:
            if matches(shape_set):
                self._runtime.set_input_shapes(shape_set)
                return
        raise ValueError("inference: input shape(s) {} are not one of the model's shape sets {} (config(dynamic_input); "
                         "4-D shapes as NHWC)".format([tuple(np.shape(a)) for a in inputs],
                                                       [[tuple(d) for d in st] for st in self._shape_sets]))

    def eval_perf(self, is_print=True, fix_freq=True):
        """Runs the model once on zeros; returns the per-layer table: the board time the
        timing model predicts for the model's target (docs/board_time.md) and the run's time
        on the software NPU (per layer with init_runtime(perf_debug=True)): host time measured
        here, or on the board clock (SVP_ACL_RKNN_CONFIG with softnpu.clock "board") the
        run's predicted board time, labelled as such (docs/python.md)."""
        self._live()
        if self._runtime is None:
            raise RuntimeError("eval_perf: call init_runtime() first")
        if _svp_acl.is_encrypted_rknn(self._model):
            raise RuntimeError("eval_perf: the loaded model is encrypted (its layers are hidden): evaluate the plain "
                               "model exported before export_encrypted_rknn_model")
        if not fix_freq:
            _log.warning("eval_perf: fix_freq=False has no effect: the software NPU has no frequency to fix")
        zeros = [np.zeros(a["dims"], dtype=np.float32) for a in self._runtime.inputs()]
        self._runtime.run(zeros, [_fmt_of(a) for a in self._runtime.inputs()], [False] * len(zeros))
        total = self._runtime.perf_run()
        report = _predicted_table(_svp_acl.predict_board_time(self._model))
        board = self._runtime.board_clock()  # SVP_ACL_RKNN_CONFIG with softnpu.clock "board"
        if board is None:
            head = ("\nMeasured on svp-acl's software NPU: HOST time of this machine in microseconds, "
                    "not the board's time\n")
            what, total_line = "host times", "Total Operator Elapsed Time(us)"
        else:
            head = ("\nRun on svp-acl's board clock (SVP_ACL_RKNN_CONFIG softnpu.clock \"board\"): PREDICTED board time on "
                    "{} in microseconds, from the board timing model, NOT measured\n".format(board))
            what, total_line = "predicted times", "Total Predicted Run Time(us)"
        if self._perf_debug:
            report += head + self._runtime.perf_detail()  # librknnrt's table ends with the total
        else:
            report += "{}(per-layer {} need init_runtime(perf_debug=True))\n{}: {}\n".format(head, what, total_line, total)
        if is_print:
            print(report, file=sys.stdout)
        return report

    def eval_memory(self, is_print=True):
        """The memory the model takes on the software NPU (librknnrt's RKNN_QUERY_MEM_SIZE):
        a dict of bytes (weight, internal, other, total); needs init_runtime(eval_mem=True)."""
        self._live()
        if self._runtime is None or not self._eval_mem:
            raise RuntimeError("eval_memory: call init_runtime(eval_mem=True) first")
        weight, internal, total = self._runtime.mem_size()
        detail = {"total_weight_allocation": weight, "total_internal_allocation": internal,
                  "total_other_allocation": max(0, total - weight - internal), "total_model_allocation": total}
        if is_print:
            mib = lambda n: "{:.2f} MiB".format(n / 1048576.0)  # noqa: E731
            print("\n".join([
                "=" * 54, "{:^54}".format("Memory Profile Info Dump"), "=" * 54,
                "NPU model memory detail (bytes; svp-acl's software NPU, what librknnrt allocated):",
                "    Weight Memory: " + mib(weight),
                "    Internal Tensor Memory: " + mib(internal),
                "    Other Memory: " + mib(detail["total_other_allocation"]),
                "    Total Memory: " + mib(total),
                "INFO: the model file is {}".format(mib(len(self._model))),
                "=" * 54]), file=sys.stdout)
        return detail

    def release(self):
        """Frees the runtime and the model; the object cannot be used afterwards."""
        self._close_runtime()
        self._model = None
        self._qdq = None
        self._qdq_error = ""
        self._released = True
        if self._file_log is not None:
            _log.removeHandler(self._file_log)
            self._file_log.close()
            self._file_log = None

    # ----------------------------------------------------------------- helpers
    def _live(self):
        if self._released:
            raise RuntimeError("this RKNN object was released: create a new RKNN()")

    def _close_runtime(self):
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None


def _setup_logging(verbose, verbose_file):
    if not any(getattr(h, "_svp_rknn", False) for h in _log.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname).1s %(message)s"))
        handler._svp_rknn = True
        _log.addHandler(handler)
        _log.propagate = False
    _log.setLevel(logging.DEBUG if verbose else logging.WARNING)
    if verbose_file is None:
        return None
    handler = logging.FileHandler(verbose_file)  # closed by release()
    handler.setFormatter(logging.Formatter("%(levelname).1s %(message)s"))
    _log.addHandler(handler)
    return handler


def _per_input(value, n, name):
    if value is None or isinstance(value, (str, int, bool)):
        return [value] * n
    if isinstance(value, (list, tuple)) and len(value) == n:
        return list(value)
    raise ValueError("inference: {} must be one value or a list of {} (one per input), not {!r}".format(name, n, value))


def _fmt_of(attr):
    return _svp_acl.RKNN_TENSOR_NHWC if attr["fmt"] == "NHWC" else _svp_acl.RKNN_TENSOR_NCHW


def _prepare_input(i, array, attr, data_format, pass_through):
    """The array as librknnrt's rknn_inputs_set takes it, checked against the input's shape."""
    if not isinstance(array, np.ndarray):
        raise TypeError("inference: input {} ({}) is a {}, not a numpy array".format(i, attr["name"], type(array).__name__))
    dims = list(attr["dims"])  # INPUT_ATTR: NHWC for 4-D inputs
    fmt = _svp_acl.RKNN_TENSOR_NCHW
    if len(dims) == 4:
        data_format = "nhwc" if data_format is None else data_format
        if data_format not in ("nhwc", "nchw"):
            raise ValueError("inference: data_format {!r} of input {} is not 'nhwc' or 'nchw'".format(data_format, i))
        if data_format == "nchw" or pass_through:  # pass-through buffers are in the model's order (NCHW)
            dims = [dims[0], dims[3], dims[1], dims[2]]
        else:
            fmt = _svp_acl.RKNN_TENSOR_NHWC
    shape = list(array.shape)
    if shape != dims and [1] + shape == dims:
        array = array.reshape(dims)  # an image without its batch dimension of 1, as the toolkit takes it
    elif shape != dims:
        raise ValueError("inference: input {} ({}) has shape {}, the model wants {} ({})".format(
            i, attr["name"], tuple(shape), tuple(dims), "pass-through, NCHW" if pass_through and len(dims) == 4
            else ("NCHW" if fmt == _svp_acl.RKNN_TENSOR_NCHW and len(dims) == 4 else
                  "NHWC" if len(dims) == 4 else "model order")))
    if array.dtype.kind == "f" and array.dtype.itemsize == 8:
        raise TypeError("inference: input {} ({}) is float64, which librknnrt does not take: pass "
                        "array.astype(np.float32)".format(i, attr["name"]))
    return array, fmt


def _accuracy_inputs(inputs, attrs):
    """accuracy_analysis' inputs as float32 arrays in the model's (NCHW) order: .npy files or
    arrays, 4-D ones in NHWC (the toolkit's layout) or NCHW."""
    if isinstance(inputs, (str, os.PathLike, np.ndarray)):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)) or len(inputs) != len(attrs):
        raise _Refused("inputs must be a list of {} .npy file(s) or array(s), one per model input".format(len(attrs)))
    arrays = []
    for i, (item, attr) in enumerate(zip(inputs, attrs)):
        if isinstance(item, (str, os.PathLike)):
            if not str(item).endswith(".npy"):
                raise _Refused("inputs[{}] = {!r}: image files are not implemented yet in svp-acl's accuracy_analysis "
                               "(give the preprocessed input as .npy)".format(i, str(item)))
            item = np.load(item)
        if not isinstance(item, np.ndarray):
            raise _Refused("inputs[{}] is a {}, not a .npy path or numpy array".format(i, type(item).__name__))
        dims = list(attr["dims"])  # NHWC for 4-D inputs (INPUT_ATTR)
        nchw = [dims[0], dims[3], dims[1], dims[2]] if len(dims) == 4 else dims
        shape = list(item.shape)
        if len(dims) == 4 and shape in (dims, dims[1:]):
            item = item.reshape(dims).transpose(0, 3, 1, 2)
        elif shape in (nchw, nchw[1:]):
            item = item.reshape(nchw)
        else:
            raise _Refused("inputs[{}] ({}) has shape {}, the model wants {} (NHWC) or {} (NCHW)".format(
                i, attr["name"], tuple(shape), tuple(dims), tuple(nchw)))
        arrays.append(np.ascontiguousarray(item, dtype=np.float32))
    return arrays


def _report_rows(csv_text):
    """The compiler's layer accuracy CSV (worst first) as dicts in execution order."""
    import csv
    import io
    rows = []
    for r in csv.DictReader(io.StringIO(csv_text)):
        num = lambda k: float(r[k]) if r[k] != "" else None  # noqa: E731
        rows.append({"order": int(r["order"]), "layer": r["layer"], "op": r["op"],
                     "single_cos": num("single_cosine"), "single_euc": num("single_euclidean"),
                     "entire_cos": num("entire_cosine"), "entire_euc": num("entire_euclidean"),
                     "single_rel": num("single_relative_distance"), "entire_rel": num("entire_relative_distance")})
    return sorted(rows, key=lambda r: r["order"])


def _write_snapshot(output_dir, rows, summary, command_line, outputs):
    def cell(cos, euc):
        return "{:<21}".format("-" if cos is None else "{:.5f} | {:.5g}".format(cos, euc))

    width = max([len(r["op"]) + len(r["layer"]) + 3 for r in rows] + [40])
    lines = [
        "# simulator_error: the output error of each layer of the quantized model on svp-acl's software NPU",
        "#   against the float model ('golden').",
        "#   entire: the quantized model run whole (errors accumulate layer by layer).",
        "#   single: the layer alone, fed the float model's inputs (its own error).",
        "#   cos: cosine; euc: Euclidean distance ||a - g|| (rknn.accuracy_report also has ||a - g|| / ||g||).",
        "# " + command_line,
    ] + ["# " + line for line in summary] + [
        "",
        "{:<{w}}{}".format("layer_name", "simulator_error", w=width),
        "{:<{w}}{:<21}{}".format("", "entire", "single", w=width),
        "{:<{w}}{:<21}{}".format("", "cos     | euc", "cos     | euc", w=width),
        "-" * (width + 42),
    ]
    for r in rows:
        lines.append("{:<{w}}{}{}".format("[{}] {}".format(r["op"], r["layer"]), cell(r["entire_cos"], r["entire_euc"]),
                                          cell(r["single_cos"], r["single_euc"]), w=width).rstrip())
    with open(os.path.join(output_dir, "error_analysis.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for folder, named in outputs.items():
        os.makedirs(os.path.join(output_dir, folder), exist_ok=True)
        for name, array in named:
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
            np.save(os.path.join(output_dir, folder, safe + ".npy"), array)


def _predicted_table(t):
    """The board timing model's per-layer prediction as a table, labelled as a prediction."""
    name_w = max([len(l["name"]) for l in t["layers"]] + [10])
    op_w = max([len(l["op"]) for l in t["layers"]] + [6])
    lines = ["Predicted board time on {} (board timing model: predicted from published figures, NOT measured; "
             "docs/board_time.md)".format(t["soc"]),
             "{:>4}  {:<{o}}  {:<{n}}  {:>4}  {:>16}  {}".format("ID", "OpType", "Name", "Unit", "Predicted(us)",
                                                                 "Bound", o=op_w, n=name_w)]
    for i, l in enumerate(t["layers"]):
        lines.append("{:>4}  {:<{o}}  {:<{n}}  {:>4}  {:>16.3f}  {}".format(i, l["op"], l["name"], l["unit"], l["us"],
                                                                            l["bound"], o=op_w, n=name_w))
    lines.append("Total predicted board time (us): {:.3f} (of which the per-execution task cost {:.3f})".format(
        t["total_us"], t["task_us"]))
    return "\n".join(lines) + "\n"
