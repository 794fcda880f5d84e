def grad_early_return(x):
    """Gradient of early_return with respect to x."""
    result = None
    returned = False
    cond = bool(x.sum() > 0)
    if cond:
        _mul = x * x
        result = np.sum(_mul)
        returned = True
    cond2 = not returned
    if cond2:
        y = np.exp(x)
        result_saved = result
        result = y.sum()
        returned = True
    dresult = seed_like(result, None, 'early_return')
    if cond2:
        # grad of: return y.sum()   [golden_programs.py:73]
        dy = unreduce(dresult, y, None, False)
        result = result_saved
        # grad of: y = np.exp(x)   [golden_programs.py:72]
        dx = dy * y
        dresult = zeros_like(result)
    else:
        dx = zeros_like(x)
    if cond:
        # grad of: return np.sum(x * x)   [golden_programs.py:71]
        d_mul = unreduce(dresult, _mul, None, False)
        dx = dx + unbroadcast(d_mul * x, x)
        dx = dx + unbroadcast(x * d_mul, x)
    return gradient_like(dx, x)
