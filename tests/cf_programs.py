"""Control-flow programs for the reverse-mode tests: every path, every trip count."""
import numpy as np


def if_else(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x * x
    return y.sum()


def if_elif_else(x):
    s = x.sum()
    if s > 1:
        y = np.sin(x)
    elif s > -1:
        y = x ** 3
    else:
        y = np.exp(x)
    return y.sum()


def nested_if(x, w):
    if x[0] > 0:
        if w[0] > 0:
            z = x * w
        else:
            z = x + w
    else:
        z = x - w * w
    return z.sum()


def if_without_else(x):
    y = x * 1.5
    if x.mean() > 0:
        y = y * x
    return y.sum()


def ternary(x):
    y = x * 2 if x.sum() > 0 else x ** 2
    return np.sum(y)


def bool_ops(x):
    s = x.sum()
    if s > 0 and x[0] < 1 or not x[1] > 0:
        y = x * 3
    else:
        y = np.tanh(x)
    return y.sum()


def chained_comparison(x):
    if -1 < x[0] < 1:
        return np.sum(x * x)
    return np.sum(x)


def norm_condition(b):
    if np.linalg.norm(b) < 1000:
        b = b * 3
    return b.sum()


def tutorial(a):
    b = a * 2
    while np.linalg.norm(b) < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


def while_data(x):
    y = x
    while np.sum(y * y) < 50:
        y = y * 1.5 + 0.1
    return y.sum()


def while_break(x):
    y = x
    n = 0
    while True:
        y = np.sin(y) + y
        n = n + 1
        if n >= 4 or y.sum() > 10:
            break
    return y.sum()


def while_continue(x):
    i = 0
    acc = x * 0.0
    while i < 6:
        i = i + 1
        if i % 2 == 0:
            continue
        acc = acc + x * i
    return acc.sum()


def nested_while(x):
    y = x
    i = 0
    while i < 3:
        j = 0
        while j < i:
            y = y * 0.9 + np.cos(y)
            j = j + 1
        i = i + 1
    return y.sum()


def for_range(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] * x[i]
    return s


def for_range_runtime_bounds(x):
    s = x[0]
    for i in range(1, x.shape[0]):
        s = s * 0.5 + x[i] * s
    return s


def for_rows(X):
    total = 0.0
    for row in X:
        total = total + np.sum(np.tanh(row))
    return total


def for_enumerate(x):
    s = 0.0
    for i, v in enumerate(x):
        s = s + v * (i + 1)
    return s


def for_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b
    return s


def for_reversed(x):
    s = 0.0
    for i in reversed(range(x.shape[0])):
        s = s * 0.5 + x[i]
    return s


def for_nested(W):
    s = 0.0
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            s = s + W[i, j] * (i - j)
    return s


def for_break(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] ** 2
        if s > 2.0:
            break
    return s


def for_continue(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        s = s + np.sqrt(x[i])
    return s


def zero_trip(x, n):
    y = x * 2
    for i in range(n):
        y = y * x
    return y.sum()


def early_return(x):
    if x.sum() > 0:
        return np.sum(x * x)
    y = np.exp(x)
    return y.sum()


def return_in_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
        if s > 1.0:
            return s * s
    return s


def multiple_returns(x):
    m = x.max()
    if m > 1:
        return m * 2
    elif m > 0:
        return m * m
    return np.sum(x)


def augassign(x):
    y = x * 1.0
    y += x
    y *= x
    y -= 0.5 * x
    y /= 1.0 + x * x
    y **= 2
    return y.sum()


def augassign_scalar(a):
    s = a
    s += 2.0
    s *= a
    return s


def while_else_break(x):
    s = 0.0
    i = 0
    while i < len(x):
        s = s + x[i] ** 2
        if s > 2.0:
            break
        i = i + 1
    else:
        s = s * 3.0             # only when no break ended the loop
    return s


def for_else_break(x):
    p = 1.0
    for v in x:
        p = p * v
        if p < 0:
            break
    else:
        p = p + 10 * np.sum(x)
    return p


def augassign_then_write(x):
    y = x * 1.0
    y *= 2.0                # still a fresh array of its own: writes into it are fine
    y[0] = y[1]
    return np.sum(y * y)


def write_then_augassign_argument(x):
    x[0] = x[1] * x[2]
    x *= 2
    return np.sum(x * x)


def rebind_then_write_in_loop(x):
    h = x * 1.0
    for i in range(2):
        h = h * 2.0
        h[0] = h[1] * 3.0 + h[2]
    return np.sum(h * x)


def loop_over_expression(x):
    s = 0.0
    for v in x * 2.0:
        s = s + v * v
    return s


def setitem(x):
    y = np.zeros(3)
    y[0] = x[1] * 2
    y[1] = x[0] * x[2]
    y[2] = y[0] + y[1]
    return np.sum(y * y)


def setitem_loop(x):
    out = np.zeros_like(x)
    for k in range(x.shape[0]):
        out[k] = np.sin(x[k]) * k
    return np.sum(out ** 2)


def setitem_column(X, row):
    Y = X * 1.0
    Y[:, 1] = row
    Y[0] += row[0]
    return np.sum(Y ** 2)


def setitem_argument(x):
    x[0] = x[1] * x[2]
    return np.sum(x * x)


def cumprod(x):
    out = np.ones_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] * x[i]
    return out.sum()


def rnn(xs, W, U):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h)


def newton_sqrt(a):
    x = a
    for _ in range(20):
        x = 0.5 * (x + a / x)
    return x


def newton_while(a):
    x = a
    while np.abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def loop_in_branch(x):
    if x.sum() > 0:
        for i in range(3):
            x = x * 0.5 + np.sin(x)
    else:
        x = x ** 2
    return x.sum()


def branch_in_loop(x):
    y = x
    for i in range(5):
        if np.sum(y) > 0:
            y = y - 0.3 * y * y
        else:
            y = y + 0.2
    return y.sum()


def variable_defined_in_loop(x):
    for i in range(3):
        t = x * i
        x = x + t * t * 0.1
    return x.sum()


def view_read_after_write(x):
    out = np.zeros(3)
    out[0] = 2 * x[0]
    first = out[0:2]
    out[1] = 3 * x[1]
    return np.sum(first) + np.sum(out * x)


def view_read_before_write(x):
    out = np.zeros(3)
    out[0] = 2 * x[0]
    first = out[0:2]
    total = np.sum(first)
    out[1] = 3 * x[1]
    return total + np.sum(out * x)
