def jvp_vjp_while_with_break(x, seed, tangent):
    """Value of vjp_while_with_break and its derivative along `tangent`, a tangent of x."""
    dx2 = tangent
    # tangent of: tape = []   [<s2s_ad vjp_while_with_break #N>:4]
    tape = []
    dtape = []
    _sin = None
    # tangent of: y = x   [<s2s_ad vjp_while_with_break #N>:6]
    y = x
    dy2 = dx2
    n = 0
    n_iter = 0
    while True:
        n_iter = n_iter + 1
        _for_its_shape = for_its_shape(_sin)
        # tangent of: tape.append(for_its_shape(_sin))   [<s2s_ad vjp_while_with_break #N>:11]
        tape.append(_for_its_shape)
        dtape.append(None)
        # tangent of: _sin = np.sin(y)   [<s2s_ad vjp_while_with_break #N>:12]
        _sin = np.sin(y)
        d_sin2 = dy2 * np.cos(y)
        # tangent of: tape.append(y)   [<s2s_ad vjp_while_with_break #N>:13]
        tape.append(y)
        dtape.append(dy2)
        # tangent of: y = _sin + y   [<s2s_ad vjp_while_with_break #N>:14]
        d_add2 = d_sin2 + dy2
        y = _sin + y
        dy2 = d_add2
        n = n + 1
        if n >= 4 or y.sum() > 10:
            break
    check_method_owner(y, 'sum', 'golden_programs.py:59:12')
    # tangent of: _sum = y.sum()   [<s2s_ad vjp_while_with_break #N>:19]
    _sum = y.sum()
    d_sum = seed_like(_sum, seed, 'while_with_break')
    dy = unreduce(d_sum, y, None, False)
    d_dy = zero_tangent(dy)
    for _ in range(n_iter):
        # tangent of: y = tape.pop()   [<s2s_ad vjp_while_with_break #N>:25]
        y = tape.pop()
        dy2 = dtape.pop()
        # tangent of: d_sin = unbroadcast(dy, _sin)   [<s2s_ad vjp_while_with_break #N>:26]
        d_sin = unbroadcast(dy, _sin)
        d_d_sin = unbroadcast(d_dy, _sin)
        # tangent of: dy = unbroadcast(dy, y)   [<s2s_ad vjp_while_with_break #N>:27]
        _unbroadcast = unbroadcast(dy, y)
        d_unbroadcast = unbroadcast(d_dy, y)
        dy = _unbroadcast
        d_dy = d_unbroadcast
        # tangent of: dy = dy + d_sin * np.cos(y)   [<s2s_ad vjp_while_with_break #N>:28]
        _cos = np.cos(y)
        d_cos = -dy2 * np.sin(y)
        d_mul = d_d_sin * _cos + d_sin * d_cos
        d_add4 = d_dy + d_mul
        dy = dy + d_sin * _cos
        d_dy = d_add4
        # tangent of: _sin = tape.pop()   [<s2s_ad vjp_while_with_break #N>:29]
        _sin = tape.pop()
        d_sin2 = dtape.pop()
    # tangent of: return (_sum, gradient_like(dx, x))   [<s2s_ad vjp_while_with_break #N>:32]
    d_gradient_like = gradient_like(d_dy, x)
    return d_gradient_like
