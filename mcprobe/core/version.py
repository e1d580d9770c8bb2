"""mcprobe's version, in the core so that every layer can name itself without importing upwards."""

__version__ = "0.1.0"
