def grad_for_with_inplace_write(x):
    """Gradient of for_with_inplace_write with respect to x."""
    tape = []
    _mul, _sin = (None, None)
    out = np.zeros_like(x)
    check_attribute_owner(x, 'shape', 'golden_programs.py:64:20')
    steps = range(x.shape[0])
    for k in steps:
        _item2 = x[k]
        tape.append(_sin)
        _sin = np.sin(_item2)
        tape.append(_mul)
        _mul = _sin * k
        tape.append(snapshot(out[k]))
        out[k] = _mul
    _pow = out ** 2
    _sum = np.sum(_pow)
    d_sum = seed_like(_sum, None, 'for_with_inplace_write')
    # grad of: return np.sum(out ** 2)   [golden_programs.py:66]
    d_pow = unreduce(d_sum, _pow, None, False)
    dout = unbroadcast(d_pow * 2 * out, out)
    dx = zeros_like(x)
    for k in steps[::-1]:
        _item2 = x[k]
        # grad of: out[k] = np.sin(x[k]) * k   [golden_programs.py:65]
        d_mul = unbroadcast(dout[k], _mul)
        dout = zero_at(dout, k)
        out[k] = tape.pop()
        d_sin = unbroadcast(d_mul * k, _sin)
        _mul = tape.pop()
        d_item2 = d_sin * np.cos(_item2)
        _sin = tape.pop()
        add_at(dx, k, d_item2)
    return gradient_like(dx, x)
