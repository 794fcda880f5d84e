"""A write into an array of the module (or of an enclosing function) inside a differentiated
function is refused in both modes: the functions called read it as a constant, so the gradient
through what was written would be lost. Reading such arrays stays fine."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError
from fd import assert_close, numerical_grad
from test_errors import location_of

BUFFER = np.zeros(3)


class State:
    pass


STATE = State()
STATE.buffer = np.zeros(3)


def reads_buffer():
    return np.sum(BUFFER ** 2)


def fills_buffer(v):
    BUFFER[:] = v * 2.0


def writes_slice(x):
    BUFFER[:] = x
    return reads_buffer() + np.sum(x)


def adds_in_place(x):
    BUFFER[0] += x[0]
    return reads_buffer()


def writes_attribute_array(x):
    STATE.buffer[1:] = x[1:]
    return np.sum(STATE.buffer)


def writes_in_a_tuple_target(x):
    a, BUFFER[1] = x[0], x[1]
    return a * reads_buffer()


def writes_through_helper(x):
    fills_buffer(x)
    return reads_buffer() + np.sum(x)


def copies_into(x):
    np.copyto(BUFFER, x)
    return reads_buffer()


def reads_module_array(x):
    return np.sum(BUFFER * x) + np.sum(np.sin(x) * STATE.buffer)


def writes_local_copy(x):
    buf = np.copy(BUFFER)
    buf[:] = x
    return np.sum(buf ** 2)


def _refusal(f, mode):
    x = np.arange(3.0) + 0.5
    with pytest.raises(TransformError) as caught:
        if mode == "grad":
            ad.grad(f)(x)
        else:
            ad.jvp(f)(x, tangent=np.ones(3))
    return caught.value


def _assert_points_at(err, fn, marker):
    filename, line, col, source_line = location_of(fn, marker)
    assert (err.filename, err.lineno, err.col + 1) == (filename, line, col), str(err)
    assert err.source_line.strip() == source_line.strip()
    assert err.hint


CASES = [(writes_slice, writes_slice, "BUFFER[:] = x", "BUFFER"),
         (adds_in_place, adds_in_place, "BUFFER[0] += x[0]", "BUFFER"),
         (writes_attribute_array, writes_attribute_array, "STATE.buffer[1:]", "STATE"),
         (writes_in_a_tuple_target, writes_in_a_tuple_target, "BUFFER[1]", "BUFFER"),
         (writes_through_helper, fills_buffer, "BUFFER[:] = v", "BUFFER"),
         (copies_into, copies_into, "np.copyto(BUFFER, x)", "BUFFER")]


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("f, at, marker, name", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_write_into_a_module_level_array_is_refused(f, at, marker, name, mode):
    err = _refusal(f, mode)
    _assert_points_at(err, at, marker)
    assert f"`{name}`, a module-level variable" in str(err)
    assert "local array" in err.hint
    if at is not f:
        assert f"called from {location_of(f, 'fills_buffer(x)')[0]}:" \
               f"{location_of(f, 'fills_buffer(x)')[1]} (in {f.__name__})" in str(err)


def test_reading_module_level_arrays_stays_differentiable():
    x = np.arange(3.0) + 0.5
    BUFFER[:] = [1.0, -2.0, 3.0]
    STATE.buffer = np.array([0.5, 0.25, 2.0])
    try:
        expected = numerical_grad(reads_module_array, [x], 0)
        assert_close(ad.grad(reads_module_array)(x), expected, rtol=1e-6)
        assert_close(ad.jvp(reads_module_array)(x, tangent=np.ones(3))[1], np.sum(expected),
                     rtol=1e-6)
    finally:
        BUFFER[:] = 0.0


def test_the_hint_works_a_local_copy_is_differentiated():
    x = np.arange(3.0) + 0.5
    assert_close(ad.grad(writes_local_copy)(x), numerical_grad(writes_local_copy, [x], 0))
