"""rknn-toolkit2's rknn.utils: onnx_edit (seed 004, docs/python.md)."""
from rknn.utils.onnx_edit import onnx_edit

__all__ = ["onnx_edit"]
