"""rknn-toolkit2's ``rknn.api``: the RKNN class on svp-acl's compiler and software NPU."""
from .rknn import RKNN

__all__ = ["RKNN"]
