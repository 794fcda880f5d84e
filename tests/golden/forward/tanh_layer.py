def jvp_tanh_layer(W, b, x, tangent):
    """Value of tanh_layer and its derivative along `tangent`, a tangent of (W, b)."""
    dW, db = tangent
    # tangent of: h = np.tanh(W @ x + b)   [golden_programs.py:12]
    _matmul = W @ x
    d_matmul = dW @ x
    _add = _matmul + b
    d_add = d_matmul + db
    h = np.tanh(_add)
    dh = d_add * (1 - h * h)
    # tangent of: return np.sum(h * h)   [golden_programs.py:13]
    _mul = h * h
    d_mul = dh * h + h * dh
    _sum = np.sum(_mul)
    d_sum = np.sum(d_mul)
    return (_sum, d_sum)
