"""Unit tests of the kernel-side helpers (run with python -m unittest discover)."""
