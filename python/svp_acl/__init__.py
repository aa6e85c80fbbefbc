"""svp-acl from Python (docs/python.md).

The native module ``svp_acl._svp_acl`` holds the compiler (rknn_convert's conversion) and
the runtime (librknnrt's C API); ``rknn.api.RKNN`` is rknn-toolkit2's class on top of it.
The svp_acl API of its own (svp_atc options as keywords, the SVP runtime) is not
implemented yet.
"""
from . import _svp_acl  # noqa: F401  (the native module: fails here if it was not built)

__all__ = ["_svp_acl"]
