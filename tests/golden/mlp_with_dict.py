def vjp_mlp_loss(params, x, y, seed=None):
    """Value of mlp_loss and its gradient with respect to params."""
    _item = params['W1']
    _item2 = params['b1']
    h, backward_dense = fwd_dense(_item, _item2, x)
    _item3 = params['W2']
    _matmul = h @ _item3
    _item4 = params['b2']
    logits = _matmul + _item4
    _sub = logits - y
    _pow = _sub ** 2
    _mean = np.mean(_pow)
    d_mean = seed_like(_mean, seed, 'mlp_loss')
    # grad of: return np.mean((logits - y) ** 2)   [programs.py:21]
    d_pow = unreduce(d_mean / reduction_count(_pow, None), _pow, None, False)
    d_sub = unbroadcast(d_pow * 2 * _sub, _sub)
    dlogits = unbroadcast(d_sub, logits)
    # grad of: logits = h @ params["W2"] + params["b2"]   [programs.py:20]
    d_matmul = unbroadcast(dlogits, _matmul)
    d_item4 = unbroadcast(dlogits, _item4)
    dh = matmul_grad_a(d_matmul, h, _item3)
    d_item3 = matmul_grad_b(d_matmul, h, _item3)
    # grad of: h = dense(params["W1"], params["b1"], x)   [programs.py:19]
    d_item, d_item2 = backward_dense(dh)
    dparams = scatter_entries(params, ('b2', 'W2', 'b1', 'W1'), (d_item4, d_item3, d_item2, d_item))
    return (_mean, gradient_like(dparams, params))
