"""jaxlint: find, fix and prove JAX performance and correctness pitfalls."""

__version__ = "0.1.0"
