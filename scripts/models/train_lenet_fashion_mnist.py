#!/usr/bin/python3
"""Trains a LeNet-5 on Fashion-MNIST (Debian dataset-fashion-mnist) and exports it to ONNX.

The committed models/lenet_fashion_mnist.onnx was made by this script; rerunning it is
optional (scripts/deps.sh --model-tools installs Debian's python3-torch). Deterministic:
fixed seed, one thread, no data-order randomness beyond the seeded generator, so a rerun on
the same PyTorch build gives the same weights.

  /usr/bin/python3 scripts/models/train_lenet_fashion_mnist.py [--epochs 2] [--out models/lenet_fashion_mnist.onnx]

Input: "image", float32 [N,1,28,28], pixel/255 (no mean subtraction: the AIPP config of
the samples does that scaling on the NPU). Output: "logits" [N,10].
"""
import argparse
import gzip
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    magic, = struct.unpack(">I", raw[:4])
    ndim = magic & 0xFF
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    data = torch.frombuffer(bytearray(raw[4 + 4 * ndim:]), dtype=torch.uint8)
    return data.reshape(dims)


class LeNet5(nn.Module):
    # The classic layout with ReLU and max pooling: conv 5x5 (pad 2) 6 → pool → conv 5x5 16
    # → pool → fc 120 → fc 84 → fc 10.
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--out", default="models/lenet_fashion_mnist.onnx")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    train_x = read_idx(os.path.join(DATA, "train-images-idx3-ubyte.gz")).float().div(255).unsqueeze(1)
    train_y = read_idx(os.path.join(DATA, "train-labels-idx1-ubyte.gz")).long()
    test_x = read_idx(os.path.join(DATA, "t10k-images-idx3-ubyte.gz")).float().div(255).unsqueeze(1)
    test_y = read_idx(os.path.join(DATA, "t10k-labels-idx1-ubyte.gz")).long()

    model = LeNet5()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    gen = torch.Generator().manual_seed(0)
    batch = 64
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(train_x.shape[0], generator=gen)
        for i in range(0, train_x.shape[0], batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss = F.cross_entropy(model(train_x[idx]), train_y[idx])
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = (model(test_x).argmax(1) == test_y).float().mean().item()
        print(f"epoch {epoch + 1}: test top-1 {acc * 100:.2f} %", file=sys.stderr)

    model.eval()
    dummy = torch.zeros(1, 1, 28, 28)
    torch.onnx.export(model, dummy, args.out, input_names=["image"], output_names=["logits"],
                      opset_version=13, do_constant_folding=True)
    print(f"wrote {args.out} (float top-1 on the 10,000 test images: {acc * 100:.2f} %)")


if __name__ == "__main__":
    main()
