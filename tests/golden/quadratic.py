def grad_quadratic(x):
    """Gradient of quadratic with respect to x."""
    _mul = 2 * x
    d_matmul = seed_like(_mul @ x, None, 'quadratic')
    # grad of: return 2 * x @ x   [golden_programs.py:8]
    d_mul = matmul_grad_a(d_matmul, _mul, x)
    dx = matmul_grad_b(d_matmul, _mul, x)
    dx = dx + unbroadcast(2 * d_mul, x)
    return gradient_like(dx, x)
