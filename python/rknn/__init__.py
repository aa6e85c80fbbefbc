"""rknn-toolkit2's package name: ``from rknn.api import RKNN`` (docs/python.md)."""
