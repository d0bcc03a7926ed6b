"""trtcodemod: rewrite PyTorch model code into TensorRT-safe form."""
__version__ = "0.1.0"
