#!/usr/bin/python3
"""Exports two small recurrent models as torch exports them (ONNX LSTM / GRU ops), for the
compiler's recurrent-net tests and the recurrent sample. Committed outputs (a few KB):
tests/data/onnx/lstm_small.onnx and gru_small.onnx. Needs python3-torch
(scripts/deps.sh --model-tools); deterministic (seed 0).

lstm_small: input "x" [T=8, N=1, I=4] (seq-first, torch's default), a 1-layer
bidirectional LSTM (hidden 6), then a Linear on every step → "y" [8, 1, 3].
gru_small: input "x" [N=1, T=8, I=4] (batch_first=True, so torch inserts Transposes
around the ONNX GRU, which is [T, N, I]), a 1-layer GRU (hidden 5) → "y" [1, 8, 5] and
the final state "h" [1, 1, 5].
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class LstmNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, bidirectional=True)
        self.fc = nn.Linear(12, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y)


class GruNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 5, batch_first=True)

    def forward(self, x):
        return self.gru(x)


torch.onnx.export(LstmNet().eval(), torch.zeros(8, 1, 4), "tests/data/onnx/lstm_small.onnx",
                  input_names=["x"], output_names=["y"], opset_version=13)
torch.onnx.export(GruNet().eval(), torch.zeros(1, 8, 4), "tests/data/onnx/gru_small.onnx",
                  input_names=["x"], output_names=["y", "h"], opset_version=13)
print("wrote tests/data/onnx/lstm_small.onnx, tests/data/onnx/gru_small.onnx")
