"""Reverse mode, by job: refusals, record (branch choices, trip counts), emit (the adjoint
pass), tape (what to save, where, or recompute), assemble (seed, returns, signature)."""
from .assemble import ReverseMode

__all__ = ["ReverseMode"]
