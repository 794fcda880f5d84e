"""Growing and reordering local lists and tuples as users write it: `xs += [v]`, `t += (v,)`,
`xs.extend(ys)`, `xs.insert(i, v)`, `xs.pop(i)` (refused in reverse mode until 2026-11-25),
`hs = hs + [h]` and `ys = xs + [a, b]` (refused until 2026-11-27),
checked against central finite differences and HIPS autograd in every mode."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode


def plus_equals_a_display(x):
    xs = [x[0]]
    xs += [x[1] * 2.0, np.sin(x[2])]
    return xs[0] * xs[1] + xs[2] ** 2


def plus_equals_in_a_loop(x):
    hs = [x]
    for k in range(3):
        hs += [np.tanh(hs[-1] * (k + 1.0))]
    return np.sum(hs[-1] * hs[1])


def plus_equals_another_list(x):
    xs = [x[0], x[1]]
    ys = [x[2] * 3.0, x[3]]
    xs += ys
    xs += (x[0] * x[1],)                   # a list takes any iterable
    return xs[2] * xs[3] + xs[4] * xs[0]


def tuple_grown(x):
    t = (x[0],)
    t += (x[1] * 2.0, x[2])
    u = (x[3],)
    t += u
    return t[0] * t[1] + t[2] * t[3]


def extend_with_a_display_a_list_and_itself(x):
    xs = []
    xs.extend([x[0], x[1] * 2.0])
    ys = [np.exp(x[2])]
    xs.extend(ys)
    xs.extend(xs)                          # doubles it once
    return xs[0] * xs[1] + xs[2] * xs[5] + xs[3] * xs[4]


def extend_with_rows_of_an_array(x):
    rows = []
    rows.extend(x.reshape(2, 2))
    return np.sum(rows[0] * rows[1] ** 2)


def insert_at_the_front_middle_end_and_past_it(x):
    xs = [x[0], x[1] * 2.0]
    xs.insert(0, x[2] * 3.0)
    xs.insert(1, np.sin(x[3]))
    xs.insert(-1, x[0] ** 2)
    xs.insert(10, x[1] * x[2])             # past the end: appended
    xs.insert(-10, 4.0)                    # before the start: put first
    return sum(xs[k] * (k + 1.0) for k in range(len(xs))) + xs[3] * xs[6]


def pop_by_position(x):
    xs = [x[0], x[1] * 2.0, x[2], np.cos(x[3]), x[0] * x[1]]
    a = xs.pop(1)
    b = xs.pop(-2)
    xs.pop(0)                              # dropped
    return a * b + xs[0] * 3.0 + xs[-1] * a


def a_queue_in_a_loop(x):
    queue = [x[0], x[1]]
    total = 0.0
    for k in range(4):
        v = queue.pop(0)
        total = total + v * (k + 1.0)
        queue.insert(len(queue), np.sin(v) + x[2])
    return total + queue[0] * queue[1]


def reversed_in_place(x):
    xs = [x[0], x[1] * 2.0, x[2] ** 2]
    xs.reverse()
    return xs[0] * 5.0 + xs[1] * xs[2]


def rnn_joins_in_a_loop(x):
    hs = []
    h = x[:2]
    for t in range(3):
        h = np.tanh(h * x[2:] + h[::-1] * (t + 1.0))
        hs = hs + [h]
    return np.sum(np.stack(hs) ** 2 * np.arange(1.0, 4.0)[:, None])


def joined_into_a_new_name(x):
    xs = [x[0]]
    xs.append(x[1] ** 2)
    ys = xs + [np.sin(x[2]), x[3] * 2.0]
    xs.append(5.0)                         # ys is a copy: untouched
    return ys[0] * ys[3] + ys[1] * ys[2] + xs[2] * ys[0]


def joined_in_a_chain_and_in_front(x):
    xs = []
    xs = xs + [x[0], x[1]] + [x[2] * 3.0]
    ys = [np.cos(x[3])] + xs + xs          # the operand read after the copy is the old list
    xs = [x[1]] + xs
    return ys[0] * ys[1] + ys[3] * ys[6] + xs[0] * xs[3] + len(ys)


def joined_with_itself_inside(x):
    hs = [x[0]]
    hs = hs + [hs[0] * 2.0, hs[-1] + x[1]]   # the entries read the list before the join
    return hs[1] * hs[2] + hs[0]


def tuples_joined(x):
    t = ()
    for k in range(2):
        t = t + (x[k] * (k + 2.0), x[k + 2])
    u = t + t
    return t[0] * t[3] + t[1] * t[2] + u[5] * u[0]


CASES = [plus_equals_a_display, plus_equals_in_a_loop, plus_equals_another_list, tuple_grown,
         extend_with_a_display_a_list_and_itself, extend_with_rows_of_an_array,
         insert_at_the_front_middle_end_and_past_it, pop_by_position, a_queue_in_a_loop,
         reversed_in_place, rnn_joins_in_a_loop, joined_into_a_new_name,
         joined_in_a_chain_and_in_front, joined_with_itself_inside, tuples_joined]


@pytest.mark.filterwarnings("ignore:Output seems independent of input")
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_against_both_oracles(fn):
    check_every_mode(fn, np.array([0.3, -0.7, 1.1, 0.4]))


def test_an_array_plus_a_list_still_adds():
    """`+=` on a name that is not always a list is NumPy's elementwise add."""
    def f(x):
        y = x * 2.0
        y += [1.0, 2.0, 3.0, 4.0]
        return np.sum(y ** 2)
    x = np.array([0.3, -0.7, 1.1, 0.4])
    np.testing.assert_allclose(ad.grad(f)(x), 4.0 * (2.0 * x + np.arange(1.0, 5.0)))


def _extends_its_argument(xs, x):
    xs.extend([x * 2.0])
    return x * 3.0


def _inserts_into_its_argument(xs, x):
    xs.insert(0, x * 2.0)
    return x * 3.0


@pytest.mark.parametrize("fn", [_extends_its_argument, _inserts_into_its_argument])
def test_growing_a_list_argument_is_refused(fn):
    with pytest.raises(ad.TransformError) as caught:
        ad.grad(fn, wrt=1)([1.0], 2.0)
    assert caught.value.filename == __file__
    assert "`xs" in caught.value.message and caught.value.hint
