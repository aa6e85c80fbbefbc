#!/usr/bin/python3
"""A ResNet-50-shaped ONNX model and random inputs, for timing svp_atc (docs/quantization.md,
"Speed": the --accuracy_report cost).

Bottlenecks 3-4-6-3 as torchvision's ResNet-50 with BatchNorm folded (every Conv has a
bias), random weights (He-scaled, the last Conv of each block damped so that the residual
sums stay in range; fixed seed), 224x224 by default. torchvision's own export
(export_torchvision.py) needs python3-torch, which the development machine lacks; this needs
only numpy and writes the ONNX protobuf by hand.

  /usr/bin/python3 scripts/models/resnet50_shaped.py OUT_DIR [N_INPUTS=4] [SIZE=224]

writes OUT_DIR/resnet50_shaped.onnx (input "input" [1,3,SIZE,SIZE], output "logits"),
N_INPUTS random .npy inputs and OUT_DIR/calibration.txt listing them (for
--image_list=input:OUT_DIR/calibration.txt).
"""
import struct, sys, os
import numpy as np

def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F; n >>= 7
        if n: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def key(f, wt): return varint((f << 3) | wt)
def f_int(f, v): return key(f, 0) + varint(v)
def f_bytes(f, b): return key(f, 2) + varint(len(b)) + b
def f_str(f, s): return f_bytes(f, s.encode())

def tensor(name, arr):
    arr = np.ascontiguousarray(arr, dtype=np.float32)
    b = b"".join(f_int(1, d) for d in arr.shape) + f_int(2, 1) + f_str(8, name) + f_bytes(9, arr.tobytes())
    return b
def attr_ints(name, v): return f_str(1, name) + b"".join(f_int(8, x) for x in v) + f_int(20, 7)
def attr_int(name, v): return f_str(1, name) + f_int(3, v) + f_int(20, 2)
def attr_float(name, v): return f_str(1, name) + key(2, 5) + struct.pack("<f", v) + f_int(20, 1)
def node(op, ins, outs, name, attrs=()):
    b = b"".join(f_str(1, i) for i in ins) + b"".join(f_str(2, o) for o in outs) + f_str(3, name) + f_str(4, op)
    return b + b"".join(f_bytes(5, a) for a in attrs)
def value_info(name, dims):
    shape = b"".join(f_bytes(1, f_int(1, d)) for d in dims)
    tt = f_int(1, 1) + f_bytes(2, shape)
    return f_str(1, name) + f_bytes(2, f_bytes(1, tt))

class Net:
    def __init__(s, seed=1):
        s.rng = np.random.default_rng(seed); s.nodes = []; s.inits = []; s.n = 0
    def conv(s, x, cin, cout, k, stride=1, relu=True, gain=1.0):
        s.n += 1; name = f"conv{s.n}"
        w = s.rng.standard_normal((cout, cin, k, k)).astype(np.float32) * np.float32(gain * np.sqrt(2.0 / (cin * k * k)))
        bias = (s.rng.standard_normal(cout) * 0.05).astype(np.float32)
        s.inits += [tensor(name + ".w", w), tensor(name + ".b", bias)]
        p = k // 2
        s.nodes.append(node("Conv", [x, name + ".w", name + ".b"], [name], name,
                            [attr_ints("kernel_shape", [k, k]), attr_ints("strides", [stride, stride]),
                             attr_ints("pads", [p, p, p, p])]))
        return s.relu(name) if relu else name
    def relu(s, x):
        s.nodes.append(node("Relu", [x], [x + "_relu"], x + "_relu")); return x + "_relu"
    def bottleneck(s, x, cin, mid, stride):
        y = s.conv(x, cin, mid, 1); y = s.conv(y, mid, mid, 3, stride); y = s.conv(y, mid, mid * 4, 1, relu=False, gain=0.3)
        sc = s.conv(x, cin, mid * 4, 1, stride, relu=False) if (stride != 1 or cin != mid * 4) else x
        s.n += 1; a = f"add{s.n}"
        s.nodes.append(node("Add", [y, sc], [a], a)); return s.relu(a)

def build(size):
    net = Net()
    x = net.conv("input", 3, 64, 7, 2)
    net.nodes.append(node("MaxPool", [x], ["pool"], "pool", [attr_ints("kernel_shape", [3, 3]), attr_ints("strides", [2, 2]),
                                                            attr_ints("pads", [1, 1, 1, 1])]))
    x, cin = "pool", 64
    for mid, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for b in range(blocks):
            x = net.bottleneck(x, cin, mid, stride if b == 0 else 1); cin = mid * 4
    net.nodes.append(node("GlobalAveragePool", [x], ["gap"], "gap"))
    net.nodes.append(node("Flatten", ["gap"], ["flat"], "flatten", [attr_int("axis", 1)]))
    w = (net.rng.standard_normal((1000, 2048)) * np.sqrt(1.0 / 2048)).astype(np.float32)
    net.inits += [tensor("fc.w", w), tensor("fc.b", np.zeros(1000, np.float32))]
    net.nodes.append(node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], "fc", [attr_int("transB", 1)]))
    g = b"".join(f_bytes(1, n) for n in net.nodes) + f_str(2, "resnet50_shaped")
    g += b"".join(f_bytes(5, t) for t in net.inits)
    g += f_bytes(11, value_info("input", [1, 3, size, size])) + f_bytes(12, value_info("logits", [1, 1000]))
    opset = f_str(1, "") + f_int(2, 13)
    return f_int(1, 7) + f_str(2, "resnet50_shaped.py") + f_bytes(7, g) + f_bytes(8, opset)

def main():
    out = sys.argv[1]; n = int(sys.argv[2]) if len(sys.argv) > 2 else 4; size = int(sys.argv[3]) if len(sys.argv) > 3 else 224
    os.makedirs(out, exist_ok=True)
    open(os.path.join(out, "resnet50_shaped.onnx"), "wb").write(build(size))
    rng = np.random.default_rng(7)
    with open(os.path.join(out, "calibration.txt"), "w") as lst:
        for k in range(n):
            p = os.path.join(out, f"calib_{k}.npy")
            np.save(p, rng.standard_normal((1, 3, size, size)).astype(np.float32)); lst.write(p + "\n")

main()
