"""trtcodemod's own version (TensorRT's are :mod:`trtcodemod.versions`), in a module of its own
so that any floor reads it without importing the package's public API."""

__version__ = "0.1.0"
