#!/usr/bin/python3
"""Exports torchvision ResNet-18, ResNet-50 and MobileNetV2 to ONNX (random weights).

For benchmarks and the optional `torchvision` test label; the files are large and stay out
of git (default output: build/models/). Needs Debian's python3-torch and
python3-torchvision (scripts/deps.sh --model-tools).

Random weights alone leave BatchNorm at mean 0 / variance 1, which folds into the
convolutions as a no-op and hides BN-folding bugs; so each model first runs a few batches
of random data in train mode to give BatchNorm non-trivial running statistics.

  /usr/bin/python3 scripts/models/export_torchvision.py [--out build/models] [--models resnet18,mobilenet_v2]
      [--dynamic-batch]

--dynamic-batch writes NAME_dynamic_batch.onnx with a symbolic batch dimension instead (for
bench/vs_onnxruntime.sh, which runs batch 1 and 8 in onnxruntime; svp_atc fixes the batch
with --input_shape).
"""
import argparse
import os
import sys

import torch
import torchvision

MODELS = {
    "resnet18": lambda: torchvision.models.resnet18(weights=None),
    "resnet50": lambda: torchvision.models.resnet50(weights=None),
    "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(weights=None),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="build/models")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--dynamic-batch", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit(f"unknown model {name!r}; known: {', '.join(MODELS)}")
        # Seeded per model: its weights do not depend on which other models are exported
        # (a --dynamic-batch run of a subset once gave a MobileNetV2 unlike the static one).
        torch.manual_seed(0)
        model = MODELS[name]()
        model.train()
        with torch.no_grad():
            for _ in range(4):
                model(torch.randn(8, 3, 224, 224) * 0.5 + 0.1)
        model.eval()
        path = os.path.join(args.out, f"{name}{'_dynamic_batch' if args.dynamic_batch else ''}.onnx")
        axes = {"input": {0: "batch"}, "output": {0: "batch"}} if args.dynamic_batch else None
        torch.onnx.export(model, torch.zeros(1, 3, 224, 224), path, input_names=["input"],
                          output_names=["output"], opset_version=args.opset, do_constant_folding=True,
                          dynamic_axes=axes)
        print(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
