def vjp_quadratic(x, seed=None):
    """Value of quadratic and its gradient with respect to x."""
    _mul = 2 * x
    _matmul = _mul @ x
    d_matmul = seed_like(_matmul, seed, 'quadratic')
    # grad of: return 2 * x @ x   [golden_programs.py:8]
    d_mul = matmul_grad_a(d_matmul, _mul, x)
    dx = matmul_grad_b(d_matmul, _mul, x)
    dx = dx + unbroadcast(2 * d_mul, x)
    return (_matmul, gradient_like(dx, x))
