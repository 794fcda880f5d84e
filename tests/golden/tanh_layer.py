def grad_tanh_layer(W, b, x):
    """Gradient of tanh_layer with respect to W, b."""
    _matmul = W @ x
    h = np.tanh(_matmul + b)
    _mul = h * h
    _sum = np.sum(_mul)
    d_sum = seed_like(_sum, None, 'tanh_layer')
    # grad of: return np.sum(h * h)   [golden_programs.py:13]
    d_mul = unreduce(d_sum, _mul, None, False)
    dh = unbroadcast(d_mul * h, h)
    dh = dh + unbroadcast(h * d_mul, h)
    # grad of: h = np.tanh(W @ x + b)   [golden_programs.py:12]
    d_add = dh * (1 - h * h)
    d_matmul = unbroadcast(d_add, _matmul)
    db = unbroadcast(d_add, b)
    dW = matmul_grad_a(d_matmul, W, x)
    return (gradient_like(dW, W), gradient_like(db, b))
