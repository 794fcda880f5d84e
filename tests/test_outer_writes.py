"""A write into an array of the module (or of an enclosing function) inside a differentiated
function is refused in both modes: the functions called read it as a constant, so the gradient
through what was written would be lost. Reading such arrays stays fine."""
import types

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


# --- writes through a local name that may be a module-level array ------------------------------
CONFIG = {"buf": np.zeros(3)}
other_module = types.ModuleType("other_module")      # stands for `import othermodule`
other_module.ARRAY = np.zeros(3)


def get_buffer():
    return BUFFER


def passes_on(a):
    return a


def through_a_name(x):
    b = BUFFER
    b[:] = x
    return np.sum(BUFFER ** 2)


def through_reshape(x):
    b = BUFFER.reshape(3)
    b[:] = x
    return np.sum(BUFFER ** 2)


def through_view(x):
    b = BUFFER.view()
    b[:] = x
    return np.sum(BUFFER ** 2)


def through_ravel(x):
    b = BUFFER.ravel()
    b[1:] = x[1:]
    return np.sum(BUFFER ** 2)


def through_a_helper(x):
    b = get_buffer()
    b[:] = x
    return np.sum(BUFFER ** 2)


def through_an_identity_helper(x):
    b = passes_on(BUFFER)
    b[:] = x
    return np.sum(BUFFER ** 2)


def through_an_augmented_name(x):
    b = BUFFER
    b += x
    return np.sum(BUFFER ** 2)


def through_a_branch(x):
    b = np.zeros(3)
    if x[0] > 0:
        b = BUFFER
    b[:] = x
    return np.sum(BUFFER ** 2) + np.sum(b)


ALIAS_CASES = [(through_a_name, "b[:] = x"), (through_reshape, "b[:] = x"),
               (through_view, "b[:] = x"), (through_ravel, "b[1:] = x[1:]"),
               (through_a_helper, "b[:] = x"), (through_an_identity_helper, "b[:] = x"),
               (through_an_augmented_name, "b += x"), (through_a_branch, "b[:] = x")]


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("f, marker", ALIAS_CASES, ids=[c[0].__name__ for c in ALIAS_CASES])
def test_a_write_through_a_name_for_a_module_level_array_is_refused(f, marker, mode):
    err = _refusal(f, mode)
    _assert_points_at(err, f, marker)
    assert "`b`, which may be `BUFFER`, a module-level variable" in str(err)
    assert "`buf = np.copy(BUFFER)`" in err.hint


def reads_through_names(x):
    b = BUFFER.reshape(3)
    c = get_buffer()
    a = np.zeros(3)
    a[:] = BUFFER              # a copy into a local array: writing into it afterwards is fine
    a[0] = x[0]
    return np.sum(b * x) + np.sum(np.sin(x) * c) + np.sum(a * x) + np.sum(passes_on(BUFFER) * x)


def test_reading_module_level_arrays_through_names_stays_differentiable():
    x = np.arange(3.0) + 0.5
    BUFFER[:] = [1.0, -2.0, 3.0]
    try:
        expected = numerical_grad(reads_through_names, [x], 0)
        assert_close(ad.grad(reads_through_names)(x), expected, rtol=1e-6)
        assert_close(ad.jvp(reads_through_names)(x, tangent=np.ones(3))[1], np.sum(expected),
                     rtol=1e-6)
    finally:
        BUFFER[:] = 0.0


def writes_a_dict_entry(x):
    CONFIG["buf"][:] = x
    return np.sum(CONFIG["buf"] ** 2)


def writes_an_attribute(x):
    STATE.buffer[:] = x
    return np.sum(STATE.buffer ** 2)


def writes_another_modules_array(x):
    other_module.ARRAY[:] = x
    return np.sum(other_module.ARRAY ** 2)


HINT_CASES = [(writes_a_dict_entry, 'CONFIG["buf"][:] = x', 'np.copy(CONFIG["buf"])'),
              (writes_an_attribute, "STATE.buffer[:] = x", "np.copy(STATE.buffer)"),
              (writes_another_modules_array, "other_module.ARRAY[:] = x", "np.copy(other_module.ARRAY)")]


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("f, marker, copy", HINT_CASES, ids=[c[0].__name__ for c in HINT_CASES])
def test_the_hint_names_the_written_array(f, marker, copy, mode):
    err = _refusal(f, mode)
    _assert_points_at(err, f, marker)
    assert f"`buf = {copy}`" in err.hint


def bumps_its_first_entry(t):
    e, _ = t
    e += 2.0 * e
    return e


def reads_an_entry_after_a_callee_bumps_it(x):
    y = x * 1.0
    t = [y[:, 1], y]
    c = t[0]
    bumps_its_first_entry(t)
    return np.sum(c)


def bumps_a_number_entry(x):
    t = (x[0], x[1])
    return bumps_its_first_entry(t) * x[2]


def test_a_callee_updating_an_array_entry_of_its_argument_in_place_is_refused():
    """`e, _ = t; e += ...` changes the caller's array inside `t` (it gave the gradient as if
    nothing changed, a fuzzer find 2026-11-24): refused when it runs, at the update."""
    with pytest.raises(TransformError, match="updates the array `e` in place"):
        ad.grad(reads_an_entry_after_a_callee_bumps_it)(np.ones((3, 2)))


def test_a_callee_updating_a_number_entry_is_differentiated():
    x = np.array([0.5, -1.0, 2.0])
    assert_close(ad.grad(bumps_a_number_entry)(x), numerical_grad(bumps_a_number_entry, [x], 0))


def bumps_the_first_of(t):
    first, second = t
    first += np.min(second, axis=0)


def multiplies_then_lets_a_helper_bump_the_factor(x, pair):
    factor, _ = pair
    y = x * factor
    bumps_the_first_of(pair)
    return np.sum(y)


def test_a_constant_argument_updated_in_place_after_its_value_was_used_is_refused():
    """`pair` carries no derivative, but `y = x * factor` needs `factor` as it was: the helper
    changes it afterwards, so the call is checked even though it involves no varied value
    (it gave the gradient with the changed factor, a fuzzer find 2026-11-24)."""
    pair = (np.array([0.4, 0.2, -1.6]), np.ones((3, 3)))
    with pytest.raises(TransformError, match="updates the array `first` in place"):
        ad.grad(multiplies_then_lets_a_helper_bump_the_factor)(np.ones(3), pair)
