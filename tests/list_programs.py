"""Lists that grow while the function runs: read back with `xs[-1]`, stacked, concatenated."""
import numpy as np


def iterate_last(x):
    out = [x]
    for i in range(3):
        out.append(np.sin(out[-1]))
    return np.sum(out[-1])


def rnn_hidden_list(W, xs):
    hs = [np.zeros(2)]
    for t in range(len(xs)):
        hs.append(np.tanh(W @ hs[-1] + xs[t]))
    return np.sum(hs[-1] ** 2)


def two_last(x):
    L = [x, x * 2.0]
    for i in range(3):
        L.append(L[-1] * L[-2])
    return np.sum(L[-1])


def named_last(x):
    L = [x]
    for i in range(3):
        v = L[-1]
        L.append(np.sin(v) * x)
    return np.sum(L[-1])


def stacked(x):
    out = [x]
    for i in range(3):
        out.append(np.cos(out[-1]) * 0.5)
    return np.sum(np.stack(out) ** 2)


def popped_in_loop(x):
    L = [x, x * 3.0]
    total = 0.0
    while len(L) > 0:
        v = L.pop()
        total = total + np.sum(np.sin(v))
    return total


def concatenated(x):
    L = [x]
    L = L + [x * 2.0]
    return np.sum(L[0] * L[1])


def concatenated_inside_a_call(x):
    L = [x]
    L.append(x * 3.0)
    return np.sum(np.stack(L + [x * 2.0]))


def concatenated_tuple(x):
    t = (x,) + (x * 2.0,)
    return np.sum(t[0] * t[1])


def extended_in_place(x):
    L = [x]
    L += [x * 2.0]
    return np.sum(L[0] * L[1])


def repeated(x):
    L = [x] * 2
    return np.sum(L[0] * L[1])


def concatenated_argument(xs, x):
    xs = xs + [x * 2.0]
    return np.sum(xs[-1] * xs[0])


def concatenated_then_read_alone(x):
    L = [x]
    L = L + [x * 2.0]
    return np.sum(L[1])


def concatenated_for_np_concatenate(x):
    return np.sum(np.concatenate([x[:1]] + [x[1:] * 2.0]) ** 2)


def appended_to_a_copy(xs, x):
    ys = xs[:]
    ys.append(x * 2.0)
    return np.sum(ys[0] * ys[-1])


def array_plus_list(x, a, b):
    return np.sum((x + [a, b]) ** 2)


def rows_of_an_array(x):
    rows = list(x)
    return np.sum(rows[0] * rows[-1]) + np.sum(np.sin(tuple(x)[1]))


def copy_of_a_list(x):
    xs = [x, 2.0 * x, np.cos(x)]
    ys = tuple(xs)
    return np.sum(ys[0] * ys[2]) + np.sum(list(ys)[1])


def rows_partly_read(x):
    return np.sum(sum(list(x)[1:]) * np.prod(x[0]))


def slot_overwritten_never_read(x):
    s = [x[0], x[1]]
    s[0] = s[1] * 3.0
    return s[1]


def shifted_slots(x):
    s = [x[0], x[1], x[2]]
    for i in range(2):
        s[i] = s[i + 1] * x[i]
    return s[2]


def alternating_slots(x):
    s = [1.0, 1.0]
    for i in range(3):
        s[i % 2] = np.sin(s[i % 2]) * x[i]
    return s[0]


def starred_middle(x):
    a, *mid, b = x
    return a * b + sum(mid) ** 2


def starred_front_of_a_tuple(x):
    *init, last = (x, np.sin(x))
    return np.sum(init[0] * last)


def rows_as_nested_lists(x):
    rows = np.sin(x).reshape(2, 2).tolist()
    return rows[0][1] * rows[1][0] + rows[1][1]


def copies_a_dict_then_updates_it(x):
    q = dict({"w": x, "b": x[0]})
    q["w"] = q["w"] * 2
    r = dict(q)
    return np.sum(r["w"] ** 2) + q["b"] * 3


def weighted_by_a_named_pair(p):
    return np.sum(p[0] ** 2) * p[1]


def weighted_by_named_fields(p):
    return np.sum(p.w ** 2) * p.b


def caches_values_in_a_dict(x):
    cache = {}
    cache["h"] = np.tanh(x)
    cache["o"] = cache["h"] * 2
    return np.sum(cache["o"] ** 2) + np.sum(cache["h"])
