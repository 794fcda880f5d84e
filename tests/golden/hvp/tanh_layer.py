def jvp_vjp_tanh_layer(W, b, x, seed, tangent):
    """Value of vjp_tanh_layer and its derivative along `tangent`, a tangent of W."""
    dW2 = tangent
    # tangent of: _matmul = W @ x   [<s2s_ad vjp_tanh_layer #N>:4]
    _matmul = W @ x
    d_matmul2 = dW2 @ x
    # tangent of: h = np.tanh(_matmul + b)   [<s2s_ad vjp_tanh_layer #N>:5]
    _add = _matmul + b
    d_add2 = broadcast_like(d_matmul2, _add)
    h = np.tanh(_add)
    dh2 = d_add2 * (1 - h * h)
    # tangent of: _mul = h * h   [<s2s_ad vjp_tanh_layer #N>:6]
    _mul = h * h
    # tangent of: _sum = np.sum(_mul)   [<s2s_ad vjp_tanh_layer #N>:7]
    _sum = np.sum(_mul)
    d_sum = seed_like(_sum, seed, 'tanh_layer')
    d_mul = unreduce(d_sum, _mul, None, False)
    # tangent of: dh = unbroadcast(d_mul * h, h)   [<s2s_ad vjp_tanh_layer #N>:11]
    d_mul22 = d_mul * dh2
    dh = unbroadcast(d_mul * h, h)
    d_dh = unbroadcast(d_mul22, h)
    # tangent of: dh = dh + unbroadcast(h * d_mul, h)   [<s2s_ad vjp_tanh_layer #N>:12]
    d_mul3 = dh2 * d_mul
    _unbroadcast = unbroadcast(h * d_mul, h)
    d_unbroadcast = unbroadcast(d_mul3, h)
    d_add22 = d_dh + d_unbroadcast
    dh = dh + _unbroadcast
    d_dh = d_add22
    # tangent of: d_add = dh * (1 - h * h)   [<s2s_ad vjp_tanh_layer #N>:14]
    d_mul4 = dh2 * h + h * dh2
    _sub = 1 - h * h
    d_sub = -broadcast_like(d_mul4, _sub)
    d_d_add = d_dh * _sub + dh * d_sub
    # tangent of: d_matmul = unbroadcast(d_add, _matmul)   [<s2s_ad vjp_tanh_layer #N>:15]
    d_d_matmul = unbroadcast(d_d_add, _matmul)
    # tangent of: dW = matmul_grad_a(d_matmul, W, x)   [<s2s_ad vjp_tanh_layer #N>:16]
    d_dW = matmul_grad_a(d_d_matmul, W, x)
    # tangent of: return (_sum, gradient_like(dW, W))   [<s2s_ad vjp_tanh_layer #N>:17]
    d_gradient_like = gradient_like(d_dW, W)
    return d_gradient_like
