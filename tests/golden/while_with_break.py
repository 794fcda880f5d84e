def grad_while_with_break(x):
    """Gradient of while_with_break with respect to x."""
    tape = []
    _sin = None
    y = x
    n = 0
    n_iter = 0
    while True:
        n_iter += 1
        tape.append(for_its_shape(_sin))
        _sin = np.sin(y)
        tape.append(y)
        y = _sin + y
        n = n + 1
        if n >= 4 or y.sum() > 10:
            break
    check_method_owner(y, 'sum', 'golden_programs.py:59:12')
    _sum = y.sum()
    d_sum = seed_like(_sum, None, 'while_with_break')
    # grad of: return y.sum()   [golden_programs.py:59]
    dy = unreduce(d_sum, y, None, False)
    for _ in range(n_iter):
        # grad of: y = np.sin(y) + y   [golden_programs.py:55]
        y = tape.pop()
        d_sin = unbroadcast(dy, _sin)
        dy = unbroadcast(dy, y)
        dy = dy + d_sin * np.cos(y)
        _sin = tape.pop()
    # grad of: y = x   [golden_programs.py:52]
    dx = dy
    return gradient_like(dx, x)
