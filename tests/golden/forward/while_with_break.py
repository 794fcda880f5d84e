def jvp_while_with_break(x, tangent):
    """Value of while_with_break and its derivative along `tangent`, a tangent of x."""
    dx = tangent
    # tangent of: y = x   [golden_programs.py:52]
    y = x
    dy = dx
    n = 0
    while True:
        # tangent of: y = np.sin(y) + y   [golden_programs.py:55]
        _sin = np.sin(y)
        d_sin = dy * np.cos(y)
        d_add = d_sin + dy
        y = _sin + y
        dy = d_add
        n = n + 1
        if n >= 4 or y.sum() > 10:
            break
    check_method_owner(y, 'sum', 'golden_programs.py:59:12')
    # tangent of: return y.sum()   [golden_programs.py:59]
    _sum = y.sum()
    d_sum = np.sum(dy)
    return (_sum, d_sum)
