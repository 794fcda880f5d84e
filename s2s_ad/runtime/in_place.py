"""What NumPy's in-place writes keep that the assignments generated code does instead would not.

The transformer differentiates `z op= v` as an assignment, `z = z op v`. On an array NumPy
writes the result into `z`: it keeps `z`'s dtype (a float32 accumulator stays float32, an int
one refuses a float result) and its shape (it refuses a result `v` broadcasts larger). And a
store `k[i] = v` converts `v` to `k`'s dtype: into an integer or bool array, no derivative
flows. These helpers give the assignments those meanings; their rules carry the derivative
through the conversion (templates/runtime_helpers.py).
"""
import numpy as np

from .arrays import _xp


def _written_in_place(z):
    """Does `z op= v` write into `z` (a NumPy or CuPy array), rather than rebind it (a number,
    a NumPy scalar, a Dask array, which has no in-place operators)?"""
    if isinstance(z, np.ndarray):
        return True
    return type(z).__module__.startswith("cupy") and hasattr(z, "__iadd__")


def updated_in_place(z, result):
    """`result`, the value of `z op v`, as `z op= v` leaves `z`: converted to `z`'s dtype where
    `z` is an array, which NumPy refuses where the result is larger than `z` or of a kind `z`
    cannot hold (a float result into an integer array)."""
    if not _written_in_place(z):
        return result
    shape = np.shape(result)
    if shape != z.shape:
        raise ValueError(f"non-broadcastable output operand with shape {z.shape} doesn't match "
                         f"the broadcast shape {shape}")
    dtype = np.result_type(result)
    if dtype == z.dtype and type(result) is type(z):
        return result
    if not np.can_cast(dtype, z.dtype, casting="same_kind"):
        raise TypeError(f"Cannot cast ufunc output from {dtype!r} to {z.dtype!r} with casting "
                        f"rule 'same_kind'")
    return _xp(z).asarray(result).astype(z.dtype, copy=False)


def through_update(g, z):
    """The adjoint of `updated_in_place(z, result)`, read off `z` (kept for the adjoint of
    `z op v` anyway) rather than off the result: nothing flows back where `z` is an array of
    integers or bools; all of `g` otherwise, a number `z` being rebound."""
    dtype = getattr(z, "dtype", None)
    if dtype is None or not _written_in_place(z) or np.issubdtype(dtype, np.inexact):
        return g
    return _xp(g).zeros(np.shape(g))


def stored_as(value, array):
    """`value` as a store `array[i] = value` converts it: to `array`'s dtype where that is not
    inexact (into an integer or bool array NumPy truncates; no derivative flows there)."""
    dtype = getattr(array, "dtype", None)
    if dtype is None or not _written_in_place(array) or np.issubdtype(dtype, np.inexact):
        return value
    return _xp(array).asarray(value).astype(dtype)
