def jvp_for_with_inplace_write(x, tangent):
    """Value of for_with_inplace_write and its derivative along `tangent`, a tangent of x."""
    dx = tangent
    out = np.zeros_like(x)
    check_attribute_owner(x, 'shape', 'golden_programs.py:64:20')
    _item = x.shape[0]
    dout = zero_tangent(out)
    for k in range(_item):
        # tangent of: out[k] = np.sin(x[k]) * k   [golden_programs.py:65]
        _item2 = x[k]
        d_item2 = dx[k]
        _sin = np.sin(_item2)
        d_sin = d_item2 * np.cos(_item2)
        _mul = _sin * k
        d_mul = d_sin * k
        out[k] = _mul
        dout[k] = d_mul
    # tangent of: return np.sum(out ** 2)   [golden_programs.py:66]
    d_pow = dout * 2 * out
    _sum = np.sum(out ** 2)
    d_sum = np.sum(d_pow)
    return (_sum, d_sum)
