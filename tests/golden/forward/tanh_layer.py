def jvp_tanh_layer(W, b, x, tangent):
    """Value of tanh_layer and its derivative along `tangent`, a tangent of (W, b)."""
    dW, db = tangent
    # tangent of: h = np.tanh(W @ x + b)   [golden_programs.py:12]
    d_matmul = dW @ x
    d_add = d_matmul + db
    h = np.tanh(W @ x + b)
    dh = d_add * (1 - h * h)
    # tangent of: return np.sum(h * h)   [golden_programs.py:13]
    d_mul = dh * h + h * dh
    _sum = np.sum(h * h)
    d_sum = np.sum(d_mul)
    return (_sum, d_sum)
