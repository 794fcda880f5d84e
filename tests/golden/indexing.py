def grad_indexing(x):
    """Gradient of indexing with respect to x."""
    _item = x[0]
    _item2 = x[-1]
    _mul = _item * _item2
    _item3 = x[::2]
    _sum = np.sum(_item3)
    _add = _mul + _sum
    _cmp = x > 0
    _item4 = x[_cmp]
    _sum2 = np.sum(_item4)
    d_add2 = seed_like(_add + _sum2, None, 'indexing')
    # grad of: return x[0] * x[-1] + np.sum(x[::2]) + np.sum(x[x > 0])   [golden_programs.py:28]
    d_add = unbroadcast(d_add2, _add)
    d_sum2 = unbroadcast(d_add2, _sum2)
    d_item4 = unreduce(d_sum2, _item4, None, False)
    dx = scatter(x, _cmp, d_item4)
    d_mul = unbroadcast(d_add, _mul)
    d_sum = unbroadcast(d_add, _sum)
    d_item3 = unreduce(d_sum, _item3, None, False)
    dx = dx + scatter(x, slice(None, None, 2), d_item3)
    d_item = unbroadcast(d_mul * _item2, _item)
    d_item2 = unbroadcast(_item * d_mul, _item2)
    dx = dx + scatter(x, -1, d_item2)
    dx = dx + scatter(x, 0, d_item)
    return gradient_like(dx, x)
