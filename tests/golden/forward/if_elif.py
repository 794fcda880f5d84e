def jvp_if_elif(x, tangent):
    """Value of if_elif and its derivative along `tangent`, a tangent of x."""
    dx = tangent
    check_method_owner(x, 'sum', 'golden_programs.py:41:9')
    s = x.sum()
    if s > 1:
        # tangent of: y = np.sin(x)   [golden_programs.py:43]
        y = np.sin(x)
        dy = dx * np.cos(x)
    elif s > -1:
        # tangent of: y = x ** 3   [golden_programs.py:45]
        y = x ** 3
        dy = dx * 3 * x ** 2
    else:
        # tangent of: y = np.exp(x)   [golden_programs.py:47]
        y = np.exp(x)
        dy = dx * y
    # tangent of: return y.sum()   [golden_programs.py:48]
    _sum = y.sum()
    d_sum = np.sum(dy)
    return (_sum, d_sum)
