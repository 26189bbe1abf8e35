"""The distribution's version, in a module of its own so anything may import it cheaply."""

__all__ = ["__version__"]

__version__ = "0.1.0"
