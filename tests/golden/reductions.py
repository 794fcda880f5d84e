def grad_reductions(X):
    """Gradient of reductions with respect to X."""
    check_method_owner(X, 'max', 'golden_programs.py:37:19')
    _max = X.max(axis=1)
    _sum = np.sum(_max)
    _mean = X.mean()
    _add = _sum + _mean
    _item = X[0]
    _prod = np.prod(_item)
    d_add2 = seed_like(_add + _prod, None, 'reductions')
    # grad of: return np.sum(X.max(axis=1)) + X.mean() + np.prod(X[0])   [golden_programs.py:37]
    d_add = unbroadcast(d_add2, _add)
    d_prod = unbroadcast(d_add2, _prod)
    d_item = prod_grad(d_prod, _prod, _item, None, False)
    dX = scatter(X, 0, d_item)
    d_sum = unbroadcast(d_add, _sum)
    d_mean = unbroadcast(d_add, _mean)
    dX = dX + unreduce(d_mean / reduction_count(X, None), X, None, False)
    d_max = unreduce(d_sum, _max, None, False)
    dX = add_extremum_share(dX, d_max, X, _max, 1, False)
    return gradient_like(dX, X)
