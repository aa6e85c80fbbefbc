#!/usr/bin/python3
"""Exports torchvision models to ONNX (random weights): ResNet-18, ResNet-50, MobileNetV2,
a YOLOv5n-sized detector (3x320x320), EfficientNet-B0, DeepLabV3-MobileNetV3-Large, ViT-Ti/16 (torchvision's VisionTransformer
with ViT-Tiny's sizes: 12 layers, 3 heads, width 192) and a transformer encoder (four
nn.TransformerEncoderLayer, width 256, 8 heads, 128 tokens; its input is 1x128x256).

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

class SegmentationOut(torch.nn.Module):
    """torchvision's segmentation models return a dict; ONNX wants the "out" tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class YoloStyle(torch.nn.Module):
    """A YOLOv5n-sized detector written out here (torchvision has none): Conv+BN+SiLU
    blocks with residual bottlenecks, an SPPF of three max pools, an FPN/PAN neck of
    nearest upsampling and concatenation, and YOLO's head (1x1 Conv to 3x85 channels,
    Reshape, Transpose, Sigmoid, the three scales concatenated)."""

    def __init__(self, classes=80):
        super().__init__()
        nn = torch.nn

        def cbs(c1, c2, k=1, s=1):
            return nn.Sequential(nn.Conv2d(c1, c2, k, s, k // 2, bias=False), nn.BatchNorm2d(c2), nn.SiLU())

        class Bottleneck(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.a, self.b = cbs(c, c // 2), cbs(c // 2, c, 3)

            def forward(self, x):
                return x + self.b(self.a(x))

        self.no = classes + 5
        self.stem = nn.Sequential(cbs(3, 16, 3, 2), cbs(16, 32, 3, 2), Bottleneck(32))
        self.p3 = nn.Sequential(cbs(32, 64, 3, 2), Bottleneck(64), Bottleneck(64))
        self.p4 = nn.Sequential(cbs(64, 128, 3, 2), Bottleneck(128), Bottleneck(128))
        self.p5 = nn.Sequential(cbs(128, 256, 3, 2), Bottleneck(256))
        self.sppf_in, self.pool, self.sppf_out = cbs(256, 128), nn.MaxPool2d(5, 1, 2), cbs(512, 256)
        self.lat5, self.up = cbs(256, 128), nn.Upsample(scale_factor=2, mode="nearest")
        self.td4, self.lat4 = cbs(256, 128, 3), cbs(128, 64)
        self.td3 = cbs(128, 64, 3)
        self.down3, self.bu4 = cbs(64, 64, 3, 2), cbs(128, 128, 3)
        self.down4, self.bu5 = cbs(128, 128, 3, 2), cbs(256, 256, 3)
        self.heads = nn.ModuleList(nn.Conv2d(c, 3 * self.no, 1) for c in (64, 128, 256))

    def forward(self, x):
        p3 = self.p3(self.stem(x))
        p4 = self.p4(p3)
        s = self.sppf_in(self.p5(p4))
        a = self.pool(s)
        b = self.pool(a)
        p5 = self.sppf_out(torch.cat([s, a, b, self.pool(b)], 1))
        l5 = self.lat5(p5)
        t4 = self.td4(torch.cat([self.up(l5), p4], 1))
        l4 = self.lat4(t4)
        o3 = self.td3(torch.cat([self.up(l4), p3], 1))
        o4 = self.bu4(torch.cat([self.down3(o3), l4], 1))
        o5 = self.bu5(torch.cat([self.down4(o4), l5], 1))
        outs = []
        for head, o in zip(self.heads, (o3, o4, o5)):
            y = head(o)
            h, w = y.shape[2], y.shape[3]
            y = y.view(-1, 3, self.no, h, w).permute(0, 1, 3, 4, 2).sigmoid()
            outs.append(y.reshape(-1, 3 * h * w, self.no))
        return torch.cat(outs, 1)


def transformer_encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)


# name -> (constructor, input shape without the batch, opset or None for --opset)
MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (3, 224, 224), None),
    "resnet50": (lambda: torchvision.models.resnet50(weights=None), (3, 224, 224), None),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (3, 224, 224), None),
    "yolo_style": (YoloStyle, (3, 320, 320), None),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(weights=None), (3, 224, 224), None),
    "deeplabv3_mobilenet_v3": (lambda: SegmentationOut(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, aux_loss=False)), (3, 224, 224), None),
    # LayerNormalization is an ONNX op from opset 17; older opsets spell it out.
    "vit_tiny": (lambda: torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=12,
                                                             num_heads=3, hidden_dim=192, mlp_dim=768),
                 (3, 224, 224), 17),
    "transformer_encoder": (transformer_encoder, (128, 256), 17),
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
        make, shape, opset = MODELS[name]
        model = make()
        model.train()
        with torch.no_grad():
            for _ in range(4):
                model(torch.randn(8, *shape) * 0.5 + 0.1)
        model.eval()
        path = os.path.join(args.out, f"{name}{'_dynamic_batch' if args.dynamic_batch else ''}.onnx")
        axes = {"input": {0: "batch"}, "output": {0: "batch"}} if args.dynamic_batch else None
        torch.onnx.export(model, torch.zeros(1, *shape), path, input_names=["input"],
                          output_names=["output"], opset_version=opset or args.opset, do_constant_folding=True,
                          dynamic_axes=axes)
        print(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
