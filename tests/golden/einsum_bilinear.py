def grad_einsum_bilinear(A, x, y):
    """Gradient of einsum_bilinear with respect to A, x, y."""
    _einsum = np.einsum('ij,i,j->', A, x, y)
    d_einsum = seed_like(_einsum, None, 'einsum_bilinear')
    # grad of: return np.einsum("ij,i,j->", A, x, y)   [golden_programs.py:32]
    dA = einsum_grad(d_einsum, 'ij,i,j->', 0, A, x, y)
    dx = einsum_grad(d_einsum, 'ij,i,j->', 1, A, x, y)
    dy = einsum_grad(d_einsum, 'ij,i,j->', 2, A, x, y)
    return (gradient_like(dA, A), gradient_like(dx, x), gradient_like(dy, y))
