"""Writes into lists and dicts inside the differentiated function: an entry written and never
read (`d['m'] = x`), state kept in a dict across a loop, a list's slice assigned. Found by an
independent tester: reverse mode raised KeyError in generated code, or TypeError in zero_at."""
import ast
import subprocess
import sys

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import UnsupportedSyntax
from fd import assert_close, assert_layers_close, numerical_grad


def entry_never_read(x):
    d = {'s': x}
    d['m'] = x
    return np.sum(d['s'])


def entry_written_in_a_loop(x):
    d = {}
    for i in range(2):
        d['m'] = x[i] * 1.0
    return d['m']


def running_state(x):
    d = {'s': 0.0}
    for i in range(2):
        d['s'] = d['s'] + x[i] * d.get('m', 1.0)
        d['m'] = x[i]
    return d['s']


def entry_read_then_added(x):
    d = {'a': x}
    d['a'] = d['a'] * 2.0
    d['b'] = d['a'] + 1.0
    return np.sum(d['a'])


def built_with_keywords(x):
    d = dict(a=x, b=x * 2)
    d['c'] = x
    return np.sum(d['b'])


def list_slot_never_read(x):
    xs = [x, x]
    xs[1] = x * 2.0
    return np.sum(xs[0])


def list_slice_swapped(x):
    xs = [x, x * 2.0, x * 3.0]
    xs[0:2] = [xs[1], xs[0]]
    return np.sum(xs[0] + 10.0 * xs[1] + 100.0 * xs[2])


PROGRAMS = [entry_never_read, entry_written_in_a_loop, running_state, entry_read_then_added,
            built_with_keywords, list_slot_never_read, list_slice_swapped]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradient_matches_finite_differences_in_both_modes(f):
    x = np.array([0.3, -0.7])
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    tangent = np.array([1.0, 10.0])
    assert_close(ad.jvp(f)(x, tangent=tangent)[1], np.dot(expected, tangent))


def slice_that_shrinks(x):
    xs = [x, x * 2.0, x * 3.0]
    xs[0:2] = [xs[1] * 5.0]
    return xs[0] + 10.0 * xs[1]


def test_a_slice_assignment_that_resizes_the_list_is_refused_at_its_line():
    with pytest.raises(UnsupportedSyntax, match="changes the list's length") as caught:
        ad.grad(slice_that_shrinks)(0.3)
    assert "xs[0:2] = [xs[1] * 5.0]" in str(caught.value)
    assert f"{__file__}:" in str(caught.value)


def replaces_a_slot(x):
    xs = [x, x]
    xs[1] = xs[0] * 2.0
    return xs[1]


def replaces_an_entry(x):
    d = {'a': x * 1.0}
    d['a'] = d['a'] * x
    return d['a']


def calls_a_helper_that_replaces_a_slot(x):
    return np.sum(replaces_a_slot(x) ** 2) + np.sum(replaces_an_entry(x))


def writes_into_a_held_array(x):
    xs = [x]
    xs[0][1] = 5.0              # writes into the caller's x: still refused
    return xs[0]


def calls_a_helper_that_writes_into_a_held_array(x):
    return np.sum(writes_into_a_held_array(x * 1.0) + writes_into_a_held_array(x))


def test_a_helper_that_replaces_an_entry_of_its_own_list_is_not_taken_for_a_write_into_x():
    x = np.array([0.3, -0.7])
    f = calls_a_helper_that_replaces_a_slot
    assert_close(ad.grad(f)(x), numerical_grad(f, [x], 0))
    # grad of grad differentiates vjp code that replaces slots of its own lists the same way
    hessian = np.array([numerical_grad(lambda v: numerical_grad(f, [v], 0, 1e-4)[k], [x], 0, 1e-4)
                        for k in range(2)])
    assert_close(ad.jacobian(ad.grad(f))(x), hessian, rtol=1e-5, atol=1e-5)


def test_a_helper_that_writes_into_an_array_its_list_holds_is_still_refused():
    # refused at the helper's write (an entry of a list that holds the caller's array)
    with pytest.raises(UnsupportedSyntax, match="in-place write into `xs\\[0\\]`|"
                                                "writes into its argument `x` in place"):
        ad.grad(calls_a_helper_that_writes_into_a_held_array)(np.array([0.3, -0.7]))


def grows_its_own_list(v):
    xs = [v]
    xs += [v * 2.0]
    return xs[0] * xs[1]


def calls_a_helper_that_grows_its_own_list(x):
    return np.sum(grows_its_own_list(x))


def test_a_helper_that_grows_a_list_it_built_is_not_taken_for_a_write_into_x():
    # found by an independent tester: SharedUpdate naming the caller's x
    x = np.array([0.3, -0.7])
    f = calls_a_helper_that_grows_its_own_list
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    assert_close(ad.jvp(f)(x, tangent=np.ones(2))[1], np.sum(expected))


def _layers(h, params):
    for W, b in params:
        h = np.tanh(h @ W + b)
        if h.ndim > 3:              # a branch: called, not copied into the caller
            h = h * 2.0
    return h


def replaces_a_layer_of_a_copied_list(params, x):
    params = list(params)
    params[0] = (params[0][0] * 2.0, params[0][1])
    return np.sum(_layers(x, params) ** 2)


def test_a_layer_tuple_replaced_in_a_copy_of_the_list_before_a_call():
    """The adjoint of `params[0] = (W, b)` is a tuple of two arrays of other shapes: the
    check for a sequence made longer by `+` read it as one array (ValueError from NumPy)."""
    rng = np.random.default_rng(6)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)),
              (rng.normal(size=(4, 2)), rng.normal(size=2))]
    x = rng.normal(size=(5, 3))
    got = ad.grad(replaces_a_layer_of_a_copied_list)(params, x)
    assert_layers_close(got, replaces_a_layer_of_a_copied_list, params, x)


_UPDATES_THE_OTHER = """
import numpy as np, s2s_ad as ad

def f(x, cfg, other):
    other.update(m=np.ones(3) * 2.0)
    return np.sum(x * cfg["m"])

x = np.array([0.3, -1.2, 0.7])
cfg = {"m": np.ones(3)}
print(ad.grad(f)(x, cfg, cfg if SAME else {"m": np.ones(3)}).tolist())
"""


@pytest.mark.parametrize("same", [True, False])
def test_a_dict_updated_through_another_argument_in_a_script(tmp_path, same):
    # found 2026-11-30 by a second reader: an AttributeError from the optimizer, where a
    # script's `__builtins__` is the module (not a dict) and a parameter's name was looked up
    # there
    script = tmp_path / "updates.py"
    script.write_text(_UPDATES_THE_OTHER.replace("SAME", str(same)))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert ast.literal_eval(done.stdout.strip()) == [2.0 if same else 1.0] * 3
