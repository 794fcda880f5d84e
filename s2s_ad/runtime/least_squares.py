"""Pieces of the derivatives of np.linalg.pinv and np.linalg.lstsq: the pseudo-inverse's
tangent, and lstsq's residuals, which NumPy returns only for a tall matrix of full rank."""
import numpy as np

from .arrays import zeros_like
from .fourier import conj
from .linalg import _swap, column_shape


def pinv_tangent(t, y, a):
    """The tangent of `y = pinv(a)` along `t` where the rank of `a` does not change:
    -y t y + y y^H t^H (1 - a y) + (1 - y a) t^H y^H y (^H: the conjugate transpose)."""
    tt = _swap(conj(t))
    yh = _swap(conj(y))
    left = np.matmul(np.matmul(y, yh), tt)
    right = np.matmul(tt, np.matmul(yh, y))
    return (left - np.matmul(np.matmul(left, a), y) + right - np.matmul(y, np.matmul(a, right))
            - np.matmul(y, np.matmul(t, y)))


def residual_spread(g, r):
    """The adjoint `g` of lstsq's residuals (one per column of the residual matrix `r`) spread
    down each column: `r * g`; zeros where lstsq returned no residuals (`g` empty)."""
    if np.size(g) == 0:
        return zeros_like(r)
    return r * g


def residual_gather(h, r, like):
    """The transpose of `residual_spread` in `g` (and, with `h` and `r` swapped, in `r`): the
    column sums of `h * r`, shaped like the residuals `like` (empty where they are)."""
    if np.size(like) == 0:
        return zeros_like(like)
    return np.reshape(np.sum(h * r, axis=-2), np.shape(like))


def lstsq_tangent(da, db, a, b, y):
    """The tangent of `y = np.linalg.lstsq(a, b)` (a of full rank) along `da` and `db`:
    (dx, d residuals, 0, d singular values). With p = pinv(a) and r = b - a x,
    dx = p (db - da x) + p p^H da^H r + (1 - p a) da^H p^H x (^H: the conjugate transpose);
    the residuals are the squared column norms of r, and a^H r = 0, so their tangent is
    2 Re(sum(conj(r) * (db - da x))) per column."""
    p = np.linalg.pinv(a)
    x = np.reshape(y[0], column_shape(y[0], b))
    r = np.reshape(b, column_shape(b, b)) - np.matmul(a, x)
    moved = np.reshape(db, column_shape(b, b)) - np.matmul(da, x)
    dah, ph = _swap(conj(da)), _swap(conj(p))
    across = np.matmul(dah, np.matmul(ph, x))
    dx = (np.matmul(p, moved) + np.matmul(p, np.matmul(ph, np.matmul(dah, r)))
          + across - np.matmul(p, np.matmul(a, across)))
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    ds = np.real(np.sum(conj(u) * np.matmul(da, _swap(conj(vh))), axis=-2))
    return (np.reshape(dx, np.shape(y[0])), 2 * np.real(residual_gather(moved, conj(r), y[1])),
            np.zeros_like(y[2]), ds)
