def grad_broadcast_bias(X, b):
    """Gradient of broadcast_bias with respect to X, b."""
    _add = X + b
    _pow = _add ** 2
    _sum = np.sum(_pow)
    d_sum = seed_like(_sum, None, 'broadcast_bias')
    # grad of: return np.sum((X + b) ** 2)   [golden_programs.py:24]
    d_pow = unreduce(d_sum, _pow, None, False)
    d_add = unbroadcast(d_pow * 2 * _add, _add)
    dX = unbroadcast(d_add, X)
    db = unbroadcast(d_add, b)
    return (gradient_like(dX, X), gradient_like(db, b))
