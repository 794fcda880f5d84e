"""Adding and removing entries: np.append and np.insert (linear in the array and the values
together: both rules, side by side) and np.delete (linear in the array, declared once by the
move back, rules.linear). The positions (`obj`) carry no derivative."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, linear, non_differentiable, tangent, transposes
from s2s_ad.runtime import delete_index, insert_part_grad, insert_place, scatter, unconcatenate


@adjoint(np.append)
def append(y, arr, values, axis=None):
    d[arr] = unconcatenate(d[y], (arr, values), axis)[0]
    d[values] = unconcatenate(d[y], (arr, values), axis)[1]


@tangent(np.append)
def append_tangent(y, arr, values, axis=None):
    d[y] = np.append(d[arr], d[values], axis)


@adjoint(np.insert)
def insert(y, arr, obj, values, axis=None):
    d[arr] = insert_part_grad(d[y], arr, obj, values, axis, "arr")
    d[values] = insert_part_grad(d[y], arr, obj, values, axis, "values")


@tangent(np.insert)
def insert_tangent(y, arr, obj, values, axis=None):
    d[y] = np.insert(d[arr], obj, d[values], axis)


@linear(np.delete)
def delete(y, arr, obj, axis=None):
    d[arr] = scatter(arr, delete_index(arr, obj, axis), d[y])


@transposes(runtime.insert_part_grad, runtime.insert_place)
def insert_part_grad_(r, g, arr, obj, values, axis=None, part="arr"):
    d[g] = insert_place(d[r], arr, obj, values, axis, part)


non_differentiable(runtime.delete_index)
