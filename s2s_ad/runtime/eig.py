"""np.linalg.eig and np.linalg.eigvals: their rules' check of the eigenvalues they follow."""
import numpy as np

from .checks import _refuse_at_user_line

# NumPy 2.5 and later return complex arrays from eig and eigvals whatever the spectrum: the
# transform then follows their results as complex values (passes/refuse_complex.py)
COMPLEX_EIGENVALUES = np.iscomplexobj(np.linalg.eigvals(np.eye(1)))


def _refuse_complex_spectrum():
    _refuse_at_user_line(
        3, "np.linalg.eig (or eigvals) of a real matrix has complex eigenvalues here; what "
           "reads them was checked for real values only", "pass the matrix (np.roots: the "
           "coefficients) as a complex one (`np.linalg.eig(a.astype(complex))`): then every "
           "rule its eigenvalues meet is checked for complex values, and the gradient of a "
           "real `a` is the real part",
        "ComplexValue")


def eig_factors(y, a):
    """`y`, the (eigenvalues, eigenvectors) of np.linalg.eig of `a`, as a tuple. Where NumPy
    gives real arrays for a real spectrum, a real `a` whose eigenvalues are complex is refused,
    naming the user's line: what reads them was checked for real values only when the function
    was transformed (a complex `a` is followed through every rule it meets, so the hint is to
    pass one)."""
    if not COMPLEX_EIGENVALUES and np.iscomplexobj(y[0]) and not np.iscomplexobj(a) and \
            np.any(np.imag(y[0]) != 0):
        _refuse_complex_spectrum()
    return tuple(y)


def real_spectrum(w):
    """`w`, the eigenvalues of a real matrix, as real values where all of them are real:
    np.roots returns real roots as real values whatever eigvals returns."""
    return w if np.any(np.imag(w) != 0) else np.real(w)


def real_spectrum_checked(g, r):
    """`g`, a derivative through real_spectrum's result `r`: complex eigenvalues are refused
    there as eig_factors refuses them (what reads them was checked for real values only)."""
    if np.iscomplexobj(r):
        _refuse_complex_spectrum()
    return g
