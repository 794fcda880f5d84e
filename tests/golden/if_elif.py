def grad_if_elif(x):
    """Gradient of if_elif with respect to x."""
    check_method_owner(x, 'sum', 'golden_programs.py:41:9')
    s = x.sum()
    cond = bool(s > 1)
    if cond:
        y = np.sin(x)
    else:
        cond2 = bool(s > -1)
        if cond2:
            y = x ** 3
        else:
            y = np.exp(x)
    _sum = y.sum()
    d_sum = seed_like(_sum, None, 'if_elif')
    # grad of: return y.sum()   [golden_programs.py:48]
    dy = unreduce(d_sum, y, None, False)
    if cond:
        # grad of: y = np.sin(x)   [golden_programs.py:43]
        dx = dy * np.cos(x)
    elif cond2:
        # grad of: y = x ** 3   [golden_programs.py:45]
        dx = unbroadcast(dy * 3 * x ** 2, x)
    else:
        # grad of: y = np.exp(x)   [golden_programs.py:47]
        dx = dy * y
    return gradient_like(dx, x)
