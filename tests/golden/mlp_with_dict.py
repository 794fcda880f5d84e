def grad_mlp_loss(params, x, y):
    """Gradient of mlp_loss with respect to params."""
    W = params['W1']
    b = params['b1']
    _matmul = x @ W
    h = np.tanh(_matmul + b)
    _item = params['W2']
    _matmul2 = h @ _item
    _item2 = params['b2']
    logits = _matmul2 + _item2
    _sub = logits - y
    _pow = _sub ** 2
    _mean = np.mean(_pow)
    d_mean = seed_like(_mean, None, 'mlp_loss')
    # grad of: return np.mean((logits - y) ** 2)   [programs.py:21]
    d_pow = unreduce(d_mean / reduction_count(_pow, None), _pow, None, False)
    d_sub = unbroadcast(d_pow * 2 * _sub, _sub)
    dlogits = unbroadcast(d_sub, logits)
    # grad of: logits = h @ params["W2"] + params["b2"]   [programs.py:20]
    d_matmul2 = unbroadcast(dlogits, _matmul2)
    d_item2 = unbroadcast(dlogits, _item2)
    dh = matmul_grad_a(d_matmul2, h, _item)
    d_item = matmul_grad_b(d_matmul2, h, _item)
    # grad of: h = dense(params["W1"], params["b1"], x)   [programs.py:19]
    d_add = dh * (1 - h * h)
    # grad of: return np.tanh(x @ W + b)   [programs.py:15]
    d_matmul = unbroadcast(d_add, _matmul)
    db = unbroadcast(d_add, b)
    dW = matmul_grad_b(d_matmul, x, W)
    # grad of: h = dense(params["W1"], params["b1"], x)   [programs.py:19]
    dparams = scatter_entries(params, ('b2', 'W2', 'b1', 'W1'), (d_item2, d_item, db, dW))
    return gradient_like(dparams, params)
