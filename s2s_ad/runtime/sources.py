"""Where each entry of a result came from, for the functions that only copy entries of their
input (np.delete, np.compress, np.extract, np.pad in its copying modes): an index `i` with
`x[i]` equal to the result. The function itself is run on the numbers 0, 1, ... in `x`'s
shape, so the index follows every form of argument it takes exactly as NumPy reads it. The
adjoint is then a scatter-add of the result's adjoint to `x[i]` (an entry copied twice gets
both), the tangent the function applied to the tangent."""
import numpy as np

from .arrays import _xp, shape_of


def _on_host(value):
    """`value` where NumPy can read it (a CuPy array copied to the host; anything else, such
    as a slice or a list, as it is)."""
    return value.get() if type(value).__module__.startswith("cupy") else value


def _numbers(x):
    """The flat positions 0, 1, ... of `x`, in `x`'s shape (on the host)."""
    shape = tuple(shape_of(x))
    return np.arange(int(np.prod(shape)), dtype=np.intp).reshape(shape)


def _index_of(positions, x):
    """The index of `x` that reads the flat `positions` (an array of them), on `x`'s backend."""
    xp = _xp(x)
    return tuple(xp.asarray(i) for i in np.unravel_index(positions, tuple(shape_of(x))))


def delete_index(arr, obj, axis=None):
    """The index of `arr` such that `arr[index]` is `np.delete(arr, obj, axis)`."""
    return _index_of(np.delete(_numbers(arr), _on_host(obj), axis), arr)


def compress_index(condition, a, axis=None):
    """The index of `a` such that `a[index]` is `np.compress(condition, a, axis)`."""
    return _index_of(np.compress(_on_host(condition), _numbers(a), axis), a)


def extract_index(condition, arr):
    """The index of `arr` such that `arr[index]` is `np.extract(condition, arr)`."""
    return _index_of(np.extract(_on_host(condition), _numbers(arr)), arr)


def pad_source_index(array, pad_width, mode):
    """The index of `array` such that `array[index]` is `np.pad(array, pad_width, mode)`, for
    the modes that fill the padding with copies of entries ('edge', 'reflect', 'symmetric',
    'wrap')."""
    return _index_of(np.pad(_numbers(array), _on_host(pad_width), mode), array)
