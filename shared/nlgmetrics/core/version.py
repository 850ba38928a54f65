"""The package version (one place; setup.cfg and signatures read it)."""

__version__ = "0.2.0"
