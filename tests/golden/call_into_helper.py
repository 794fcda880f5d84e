def grad_call_into_helper(W1, W2, x):
    """Gradient of call_into_helper with respect to W1, W2."""
    h, backward_dense2 = fwd_dense_(W1, 0.0, x)
    _dense, backward_dense = fwd_dense(W2, 1.0, h)
    _sum = np.sum(_dense)
    d_sum = seed_like(_sum, None, 'call_into_helper')
    # grad of: return np.sum(programs.dense(W2, 1.0, h))   [golden_programs.py:78]
    d_dense = unreduce(d_sum, _dense, None, False)
    dW2, dh = backward_dense(d_dense)
    # grad of: h = programs.dense(W1, 0.0, x)   [golden_programs.py:77]
    dW1 = backward_dense2(dh)
    return (gradient_like(dW1, W1), gradient_like(dW2, W2))
