def jvp_call_into_helper(W1, W2, x, tangent):
    """Value of call_into_helper and its derivative along `tangent`, a tangent of (W1, W2)."""
    dW1, dW2 = tangent
    h, dh = jvp_dense(W1, 0.0, x, dW1)
    _dense, d_dense = jvp_dense_(W2, 1.0, h, (dW2, dh))
    # tangent of: return np.sum(programs.dense(W2, 1.0, h))   [golden_programs.py:78]
    _sum = np.sum(_dense)
    d_sum = np.sum(d_dense)
    return (_sum, d_sum)
