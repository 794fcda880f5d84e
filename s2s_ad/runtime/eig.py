"""np.linalg.eig and np.linalg.eigvals: their rules' check of the eigenvalues they follow."""
import numpy as np

from .checks import _refuse_at_user_line


def eig_factors(y, a):
    """`y`, the (eigenvalues, eigenvectors) of np.linalg.eig of `a`, as a tuple. A real `a`
    whose eigenvalues are complex is refused, naming the user's line: what reads them was
    checked for real values only when the function was transformed (a complex `a` is followed
    through every rule it meets, so the hint is to pass one)."""
    if np.iscomplexobj(y[0]) and not np.iscomplexobj(a) and np.any(np.imag(y[0]) != 0):
        _refuse_at_user_line(
            2, "np.linalg.eig (or eigvals) of a real matrix has complex eigenvalues here; what "
               "reads them was checked for real values only", "pass the matrix (np.roots: the "
               "coefficients) as a complex one (`np.linalg.eig(a.astype(complex))`): then every rule its eigenvalues meet "
               "is checked for complex values, and the gradient of a real `a` is the real part",
            "ComplexValue")
    return tuple(y)
