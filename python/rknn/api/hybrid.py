"""rknn-toolkit2's hybrid quantization files (docs/python.md, "Hybrid quantization").

hybrid_quantization_step1 writes three files named after the model; the user edits the
cfg's `custom_quantize_layers`, and hybrid_quantization_step2 builds the model from them:
- `{name}.model`: svp-acl's build recipe as JSON (the ONNX model, config(), load_onnx()
  and the dataset: what step2 compiles again; the toolkit's is its own graph format);
- `{name}.data`: the int8 model image step1 built (the quantize parameters the cfg lists
  are read from it, so step2 can tell whether they were edited);
- `{name}.quantization.cfg`: YAML with `custom_quantize_layers` (layer: dtype) and
  `quantize_parameters` (per quantized tensor, as the compiler chose them).
"""
import json
import math

from svp_acl import _svp_acl

RECIPE_FORMAT = "svp-acl hybrid quantization recipe 1"

# custom_quantize_layers' dtypes and what the compiler does with the layer: int16 is
# --high_precision_layer (A8W8 -> A16W8), float16/float32 keep it float32, int8 leaves it.
_DTYPES = {"int8": None, "int16": "high_precision", "float16": "float", "float32": "float", "float": "float"}


def quantize_parameters(image):
    """The quantized activation tensors of a model image in layer order:
    [(tensor, {qtype, dtype, scale, zero_point})]."""
    described = json.loads(_svp_acl.model_json(image))
    out, seen = [], set()
    for op in described["ops"]:
        for d in op.get("output_desc", []):
            if not d or "quant" not in d or d["name"] in seen:
                continue
            seen.add(d["name"])
            zps = [int(z) for z in d["quant"]["zero_point"]]
            out.append((d["name"], {
                "qtype": "asymmetric_quantized" if any(zps) or d["dtype"] != "INT16" else "symmetric_quantized",
                "qmethod": "layer" if len(zps) <= 1 else "channel",
                "dtype": d["dtype"].lower(),
                "scale": [float(s) for s in d["quant"]["scale"]],
                "zero_point": zps}))
    return out


def layer_precisions(image):
    """{layer name: precision} of a model image as om.json gives it (A8W8, A16W8, FP16, FP32)."""
    described = json.loads(_svp_acl.model_json(image))
    return {op["name"]: op.get("precision") for op in described["ops"]}


def _quote(name):
    return json.dumps(name)  # a JSON string is a YAML double-quoted scalar


def write_cfg(path, layers, params):
    """The cfg: `layers` [(name, dtype, why)] under custom_quantize_layers, then the parameters."""
    lines = ["# svp-acl hybrid quantization (rknn.api.RKNN.hybrid_quantization_step1; docs/python.md).",
             "# Add layers (ONNX node names) with the dtype to compute them in: int16 (A16W8),",
             "# float16 or float32 (float32 in svp-acl), int8 (unchanged); then run hybrid_quantization_step2.",
             "# quantize_parameters are what the compiler chose; editing them is not implemented yet in svp-acl.",
             "custom_quantize_layers:"]
    if not layers:
        lines[-1] += " {}"
    for name, dtype, why in layers:
        lines.append("    {}: {}{}".format(_quote(name), dtype, "  # " + why if why else ""))
    lines.append("quantize_parameters:")
    for tensor, p in params:
        lines.append("    {}:".format(_quote(tensor)))
        for key in ("qtype", "qmethod", "dtype"):
            lines.append("        {}: {}".format(key, p[key]))
        lines.append("        scale: [{}]".format(", ".join(repr(s) for s in p["scale"])))
        lines.append("        zero_point: [{}]".format(", ".join(str(z) for z in p["zero_point"])))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def read_cfg(path, step1_params):
    """The cfg's layers as (high_precision names, float names); ValueError naming what is
    malformed, NotImplementedError when quantize_parameters differ from step1's."""
    doc = _svp_acl.load_yaml(path)
    if not isinstance(doc, dict):
        raise ValueError("{}: expected a mapping with custom_quantize_layers and quantize_parameters".format(path))
    unknown = sorted(set(doc) - {"custom_quantize_layers", "quantize_parameters"})
    if unknown:
        raise ValueError("{}: unknown key(s) {} (the cfg has custom_quantize_layers and quantize_parameters)".format(
            path, ", ".join(unknown)))
    if "custom_quantize_layers" not in doc:
        raise ValueError("{}: custom_quantize_layers is missing".format(path))
    layers = doc["custom_quantize_layers"] or {}
    if not isinstance(layers, dict):
        raise ValueError("{}: custom_quantize_layers must map layer names to dtypes (name: int16), not a {}".format(
            path, "list" if isinstance(layers, list) else "scalar"))
    bad = ["{}: {!r}".format(name, dtype) for name, dtype in layers.items() if not isinstance(dtype, str)
           or dtype.strip().lower() not in _DTYPES]
    if bad:
        raise ValueError("{}: custom_quantize_layers has dtype(s) other than {}: {}".format(
            path, ", ".join(sorted(_DTYPES)), "; ".join(bad)))
    _check_params(path, doc.get("quantize_parameters"), step1_params)
    high = [n for n, d in layers.items() if _DTYPES[d.strip().lower()] == "high_precision"]
    floats = [n for n, d in layers.items() if _DTYPES[d.strip().lower()] == "float"]
    return high, floats


def _check_params(path, given, step1_params):
    """The quantize parameters must be step1's: svp-acl calibrates again and cannot take edited ones."""
    given = given or {}
    if not isinstance(given, dict):
        raise ValueError("{}: quantize_parameters must be a mapping of tensor names".format(path))
    expected = dict(step1_params)
    changed = sorted(set(given) ^ set(expected))
    for tensor in set(given) & set(expected):
        p = given[tensor]
        try:
            scale = [float(s) for s in p["scale"]]
            zp = [int(z) for z in p["zero_point"]]
        except (TypeError, KeyError, ValueError):
            raise ValueError("{}: quantize_parameters of {!r} need scale and zero_point lists of numbers".format(
                path, tensor))
        want = expected[tensor]
        if zp != want["zero_point"] or len(scale) != len(want["scale"]) or any(
                not math.isclose(a, b, rel_tol=1e-6) for a, b in zip(scale, want["scale"])):
            changed.append(tensor)
    if changed:
        raise NotImplementedError(
            "{}: quantize_parameters of {} differ from what hybrid_quantization_step1 wrote; editing them is not "
            "implemented yet in svp-acl (step2 calibrates on the dataset again; change custom_quantize_layers "
            "only)".format(path, ", ".join(sorted(changed))))


def propose(rows, limit=8, threshold=0.99):
    """proposal=True: the quantized layers whose single cosine (the layer alone on float
    inputs, accuracy_analysis) is below `threshold`, worst first (at most `limit`); the
    single worst one when none is below it."""
    quantized = sorted((r for r in rows if r["single_cos"] is not None), key=lambda r: r["single_cos"])
    chosen = [r for r in quantized if r["single_cos"] < threshold][:limit] or quantized[:1]
    return [(r["layer"], "float16", "single cosine {:.5f}".format(r["single_cos"])) for r in chosen]
