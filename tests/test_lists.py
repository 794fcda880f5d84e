"""Gradients through lists built while the function runs, against finite differences."""
import inspect

import numpy as np
import pytest

import list_programs as L
import s2s_ad as ad
from s2s_ad.errors import UnsupportedSyntax
from fd import assert_close, numerical_grad
from oracle_checks import check_every_mode

rng = np.random.default_rng(11)
x3 = np.array([0.3, -1.2, 0.8])

GROWING = [
    (L.iterate_last, [0.4], 0),
    (L.iterate_last, [x3], 0),
    (L.rnn_hidden_list, [rng.normal(size=(2, 2)), rng.normal(size=(4, 2))], 0),
    (L.rnn_hidden_list, [rng.normal(size=(2, 2)), rng.normal(size=(4, 2))], 1),
    (L.two_last, [x3], 0),
    (L.named_last, [x3], 0),
    (L.stacked, [x3], 0),
    (L.popped_in_loop, [x3], 0),
]


@pytest.mark.parametrize("fn, args, argnum", GROWING,
                         ids=[f"{f.__name__}-{a}" for f, _, a in GROWING])
def test_reading_the_last_entry_of_a_growing_list(fn, args, argnum):
    """The backward loop must see the list as the forward iteration saw it (`xs[-1]` read
    before the append), not as it is after."""
    expected = numerical_grad(fn, args, argnum)
    assert_close(ad.grad(fn, wrt=argnum)(*args), expected)
    tangent = rng.normal(size=np.shape(args[argnum]))
    assert_close(ad.jvp(fn, wrt=argnum)(*args, tangent=tangent)[1], np.sum(expected * tangent))


def test_second_derivative_through_a_growing_list():
    x = 0.4
    first = ad.grad(L.iterate_last)
    e = 1e-5
    expected = (first(x + e) - first(x - e)) / (2 * e)
    assert ad.grad(first)(x) == pytest.approx(expected, rel=1e-6)


# written-out lists: the display they make (passes/lower_sequence_arithmetic.py); a name that
# always holds a list, joined and bound to a name: a copy and appends
# (passes/lower_sequence_updates.py)
WRITTEN_OUT = [L.concatenated_tuple, L.repeated, L.concatenated_for_np_concatenate,
               L.concatenated, L.concatenated_then_read_alone]


@pytest.mark.parametrize("fn", WRITTEN_OUT, ids=lambda f: f.__name__)
def test_list_and_tuple_arithmetic_on_written_out_lists_is_differentiated(fn):
    assert_close(ad.grad(fn)(x3), numerical_grad(fn, [x3], 0))


def _line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    index = next(i for i, line in enumerate(lines) if marker in line)
    return first + index, lines[index]


def joined_then_grown(x):
    L = [x]
    L.append(x * 3.0)
    M = L + [x * x]
    L.append(np.sin(x))
    return np.sum(np.stack(M) ** 2 * np.stack(L))


@pytest.mark.parametrize("x", [x3, 0.7], ids=["ndarray", "float"])
@pytest.mark.parametrize("fn", [L.concatenated_inside_a_call, joined_then_grown])
def test_list_arithmetic_inside_an_expression_is_differentiated(fn, x):
    """`np.stack(L + [v])` on a list the function builds concatenates: `L + [v]` of two
    known lists is runtime.joined(L, [v]), whose adjoint is cut at len(L) (it was refused)."""
    if np.ndim(x):
        check_every_mode(fn, x.copy())
        return
    assert_close(ad.grad(fn)(x), numerical_grad(fn, [x], 0))
    assert_close(ad.jvp(fn)(x, tangent=1.0)[1], numerical_grad(fn, [x], 0))


def test_list_arithmetic_on_a_list_argument_is_refused_when_it_runs():
    """A parameter may be an array, where `+` adds: only when the derivative runs is it known
    to be a list; refused there, at the user's line, with a fix that works."""
    fn = L.concatenated_argument
    line, text = _line_of(fn, " + [")
    with pytest.raises(UnsupportedSyntax) as caught:
        ad.grad(fn, wrt=1)([x3], x3)
    message = str(caught.value)
    assert message.startswith(f"{inspect.getsourcefile(fn)}:{line}:5: cannot differentiate "
                              f"`+` or `*` on lists or tuples"), message
    assert "`ys = list(xs)`" in caught.value.hint


def test_the_suggested_copy_then_join_is_differentiated():
    def fn(xs, x):
        ys = list(xs)
        ys = ys + [x * 2.0]
        return np.sum(ys[-1] * ys[0])
    xs = [np.array([1.0, 2.0, 3.0])]
    assert_close(ad.grad(fn, wrt=1)(xs, x3), numerical_grad(lambda v: fn(xs, v), [x3], 0))
    assert_close(ad.grad(fn)(xs, x3)[0], numerical_grad(lambda v: fn([v], x3), [xs[0]], 0))


@pytest.mark.parametrize("x", [x3, 0.7], ids=["ndarray", "float"])
def test_extending_a_local_list_in_place_is_differentiated(x):
    """`L += [v]` on a list the function builds appends (refused until 2026-11-25)."""
    assert_close(ad.grad(L.extended_in_place)(x), numerical_grad(L.extended_in_place, [x], 0))
    assert_close(ad.jvp(L.extended_in_place)(x, tangent=np.ones_like(x))[1],
                 np.sum(numerical_grad(L.extended_in_place, [x], 0)))


def test_the_suggested_copy_and_append_is_differentiated():
    xs, x = [np.array([1.0, 2.0, 3.0])], x3
    grads = ad.grad(L.appended_to_a_copy, wrt=(0, 1))(xs, x)
    assert_close(grads[1], numerical_grad(lambda v: L.appended_to_a_copy(xs, v), [x], 0))
    assert_close(grads[0][0], numerical_grad(lambda v: L.appended_to_a_copy([v], x), [xs[0]], 0))


def test_an_array_plus_a_list_of_numbers_is_numpy_arithmetic():
    args = [x3[:2], 0.5, -1.5]
    grads = ad.grad(L.array_plus_list, wrt=(0, 1, 2))(*args)
    for argnum, g in enumerate(grads):
        assert_close(g, numerical_grad(L.array_plus_list, args, argnum))


SEQUENCE_CALLS = [(L.rows_of_an_array, rng.normal(size=(3, 2))),
                  (L.rows_of_an_array, rng.normal(size=3)),
                  (L.copy_of_a_list, rng.normal(size=4)),
                  (L.rows_partly_read, rng.normal(size=(4, 2)))]


@pytest.mark.parametrize("fn, x", SEQUENCE_CALLS,
                         ids=[f"{f.__name__}-{np.shape(x)}" for f, x in SEQUENCE_CALLS])
def test_list_and_tuple_of_an_array_or_a_list(fn, x):
    """`list(x)` / `tuple(x)` hand out an array's rows (or a list's entries): reverse mode
    stacks their adjoints back, rows never read get zero; forward and second order agree."""
    expected = numerical_grad(fn, [x], 0)
    assert_close(ad.grad(fn)(x), expected)
    direction = rng.normal(size=np.shape(x))
    assert_close(ad.jvp(fn)(x, tangent=direction)[1], np.sum(expected * direction))
    gradient = ad.grad(fn)
    e = 1e-5
    difference = (gradient(x + e * direction) - gradient(x - e * direction)) / (2 * e)
    assert_close(ad.hvp(fn)(x, vector=direction), difference, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [L.slot_overwritten_never_read, L.shifted_slots,
                                L.alternating_slots], ids=lambda f: f.__name__)
def test_a_slot_written_but_never_read_again_has_zero_adjoint(fn):
    """A list slot whose new value nothing reads has no adjoint entry (None, the container
    zero): the write's value gets zero, in the gradient and in forward over reverse."""
    x = np.array([0.3, -0.8, 1.1])
    expected = numerical_grad(fn, [x], 0)
    assert_close(ad.grad(fn)(x), expected)
    gradient = ad.grad(fn)
    e = 1e-5
    hessian = np.array([(gradient(x + e * v) - gradient(x - e * v)) / (2 * e) for v in np.eye(3)])
    assert_close(ad.hessian(fn)(x), hessian, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [L.starred_middle, L.starred_front_of_a_tuple,
                                L.rows_as_nested_lists, L.copies_a_dict_then_updates_it],
                         ids=lambda f: f.__name__)
def test_starred_unpacking_tolist_and_dict_copies(fn):
    """`a, *mid, b = x` reads as indexing and a slice made a list; `x.tolist()` hands out the
    entries as nested lists of numbers; `dict(q)` copies the entries: all three modes agree
    with differences."""
    x = np.array([0.3, -0.7, 1.2, 0.5])
    expected = numerical_grad(fn, [x], 0)
    assert_close(ad.grad(fn)(x), expected)
    direction = rng.normal(size=4)
    assert_close(ad.jvp(fn)(x, tangent=direction)[1], expected @ direction)
    gradient = ad.grad(fn)
    e = 1e-5
    hessian = np.array([(gradient(x + e * v) - gradient(x - e * v)) / (2 * e) for v in np.eye(4)])
    assert_close(ad.hessian(fn)(x), hessian, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [L.weighted_by_a_named_pair, L.weighted_by_named_fields],
                         ids=["by_position", "by_name"])
def test_namedtuple_arguments_by_position_and_by_field(fn):
    """`p[0]` and `p.w` on a namedtuple argument: the gradient goes to that entry, and jvp's
    tangent is rebuilt as the namedtuple (`p.w` was refused: no rule for `.w`; the tangent
    raised a TypeError from namedtuple's constructor)."""
    from collections import namedtuple
    pair = namedtuple("pair", ["w", "b"])
    p = pair(np.array([0.3, -0.7]), 0.5)
    gradient = ad.grad(fn)(p)
    assert type(gradient) is pair                  # the gradient has the argument's type
    assert_close(gradient.w, 2 * p.w * p.b)
    assert_close(gradient.b, np.sum(p.w ** 2))
    nested = ad.grad(lambda ps: fn(ps[0]))([p])
    assert type(nested) is list and type(nested[0]) is pair
    (value, (in_a_dict,)) = ad.value_and_grad(lambda d: fn(d["p"]), wrt=(0,))({"p": p})
    assert type(in_a_dict["p"]) is pair
    t = pair(np.array([1.0, -2.0]), 0.5)
    _, tangent = ad.jvp(fn)(p, tangent=t)
    assert_close(tangent, np.sum(gradient[0] * t.w) + gradient[1] * t.b)


def test_an_attribute_that_is_not_a_namedtuple_field_is_refused_when_it_runs():
    from s2s_ad import runtime
    with pytest.raises(TypeError, match="fields of a namedtuple"):
        runtime.field_grad(1.0, (1.0, 2.0), "w")


def test_a_dict_filled_inside_the_function():
    """`cache = {}; cache["h"] = ...`: restoring an entry in the backward pass saved
    `cache["h"]` before the write that adds the key (KeyError inside the generated code,
    found 2026-11-24); a new key now saves a marker. grad, jvp and hessian."""
    x = np.array([0.3, -0.7, 1.2])
    f = L.caches_values_in_a_dict
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    assert_close(ad.jvp(f)(x, tangent=np.ones(3))[1], np.sum(expected))
    gradient = ad.grad(f)
    e = 1e-5
    hessian = np.array([(gradient(x + e * v) - gradient(x - e * v)) / (2 * e) for v in np.eye(3)])
    assert_close(ad.hessian(f)(x), hessian, rtol=1e-5, atol=1e-6)


def sines_of_a_list(xs):
    return np.sum(np.sin(xs)) + np.max(xs) + np.linalg.norm(xs)


@pytest.mark.parametrize("container", [list, tuple])
def test_numpy_functions_of_a_list_argument(container):
    """NumPy reads a list as an array: the array adjoint is the list's gradient, entry by entry
    (it was dropped: a gradient of zeros, silently)."""
    xs = container([1.0, 2.0, 3.0])
    expected = np.cos(xs) + np.array([0.0, 0.0, 1.0]) + np.array(xs) / np.linalg.norm(xs)
    got = ad.grad(sines_of_a_list)(xs)
    assert type(got) is container
    assert_close(list(got), expected)
    assert_close(list(ad.grad(lambda v, y: np.sum(np.multiply(v, y)))(xs, np.ones(3) * 2)),
                 [2.0, 2.0, 2.0])
