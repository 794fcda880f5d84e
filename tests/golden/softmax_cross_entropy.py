def grad_softmax_cross_entropy(logits, labels):
    """Gradient of softmax_cross_entropy with respect to logits."""
    _max = np.max(logits, axis=1, keepdims=True)
    shifted = logits - _max
    _exp = np.exp(shifted)
    _exp2 = np.exp(shifted)
    _sum = np.sum(_exp2, axis=1, keepdims=True)
    probs = _exp / _sum
    check_attribute_owner(logits, 'shape', 'golden_programs.py:19:9')
    n = logits.shape[0]
    _arange = np.arange(n)
    _item = probs[_arange, labels]
    _log = np.log(_item)
    _neg = -np.mean(_log)
    d_neg = seed_like(_neg, None, 'softmax_cross_entropy')
    # grad of: return -np.mean(np.log(probs[np.arange(n), labels]))   [golden_programs.py:20]
    d_mean = -d_neg
    d_log = unreduce(d_mean / reduction_count(_log, None), _log, None, False)
    d_item = d_log / _item
    dprobs = scatter_by_range(probs, (_arange, labels), d_item, 0)
    # grad of: probs = np.exp(shifted) / np.sum(np.exp(shifted), axis=1, keepdims=True)   [golden_programs.py:18]
    d_exp = unbroadcast(dprobs / _sum, _exp)
    d_sum = unbroadcast(-dprobs * probs / _sum, _sum)
    dshifted = d_sum * _exp2
    dshifted = dshifted + d_exp * _exp
    # grad of: shifted = logits - np.max(logits, axis=1, keepdims=True)   [golden_programs.py:17]
    dlogits = unbroadcast(dshifted, logits)
    d_max = -unbroadcast(dshifted, _max)
    dlogits = dlogits + extremum_share(d_max, logits, _max, 1, True)
    return gradient_like(dlogits, logits)
