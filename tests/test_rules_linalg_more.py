"""The rest of np.linalg (qr, pinv, lstsq, matrix_power, multi_dot, eig, eigvals, cond,
vector_norm, matrix_norm, matrix_transpose, cross, vecdot) and the helpers of their rules: every
row in reverse mode and forward mode against central differences, the vjp / jvp dot-product
identity, and second order (hvp against differences of an independent gradient).

Matrices are drawn of full rank (a random one is), and kept well conditioned where a rule
divides by a factor: the pseudo-inverse and QR have no derivative where the rank drops."""
import numpy as np
import pytest

import s2s_ad as ad
import test_rules as core            # its tests are called, not imported: pytest would run them here
from s2s_ad import rules, runtime
from rule_coverage import rows_built, untested_rules
from oracle_checks import check_every_mode
from test_rules import Arg, Const, Row, check_row, check_tangent_row, normal, table

MODULES = ("qr", "least_squares", "matrix_chains", "vector_products", "matrix_norms", "eig")


class Conditioned(Arg):
    """Square matrices near 2 I, far from singular, so that their inverse (a negative power)
    moves slowly enough for central differences; with `spread`, near diag(1.5, 2.5, ...), whose
    singular values are apart too (cond's 2-norms follow the extreme singular vectors)."""

    def __init__(self, *shape, spread=False):
        super().__init__("normal", shape)
        self.spread = spread

    def __call__(self, rng):
        n = self.shape[-1]
        diagonal = 1.5 + np.arange(n) if self.spread else np.full(n, 2.0)
        return 0.3 * super().__call__(rng) + np.diag(diagonal)

    def __repr__(self):
        return f"{'spread' if self.spread else 'conditioned'}{list(self.shape)}"


class Apart(Arg):
    """Entries of distinct sizes (no ties for the inf-norms) at least 0.5 from zero: a p-norm
    with p < 2 curves sharply near a small entry, beyond what second differences resolve."""

    def __init__(self, *shape):
        super().__init__("distinct", shape)

    def __call__(self, rng):
        x = super().__call__(rng)
        return x + 0.5 * np.sign(x)

    def __repr__(self):
        return f"apart{list(self.shape)}"


class RealSpectrum(Arg):
    """q diag(1.3, 2.6, 3.9, ...) q^-1 with q = 1 + 0.3 * normal: a general (non-symmetric) real
    matrix with real eigenvalues well apart and well conditioned eigenvectors."""

    def __init__(self, *shape):
        super().__init__("normal", shape)

    def __call__(self, rng):
        n = self.shape[-1]
        q = np.eye(n) + 0.3 * super().__call__(rng)
        return np.matmul(q * (1.3 * np.arange(1, n + 1)), np.linalg.inv(q))

    def __repr__(self):
        return f"real_spectrum{list(self.shape)}"


def _weights(shape):
    """Fixed weights that make every entry of a result count differently."""
    return np.cos(np.arange(int(np.prod(shape))).reshape(shape) + 0.5)


# ---------------------------------------------------------------------------------------------
# QR: square and tall matrices, stacked; mode 'r' recomputes q; 'complete' on a square matrix
# ---------------------------------------------------------------------------------------------
def qr_q(x): return np.linalg.qr(x)[0]
def qr_r(x): return np.linalg.qr(x)[1]
def qr_unpacked(x):
    q, r = np.linalg.qr(x)
    return np.sum(q * _weights(q.shape)) + np.sum(np.sin(r))
def qr_mode_r(x): return np.linalg.qr(x, mode="r")
def qr_complete_wide(x):
    q, r = np.linalg.qr(x, "complete")
    return np.concatenate([q * 2.0, r ** 2], axis=-1)
def qr_complete_square(x, mode):
    q, r = np.linalg.qr(x, mode)
    return q * 2.0 + r ** 2


QR_ROWS = [
    # tall, square and wide (r = [u | q^T Y]), single and stacked
    *[Row(fn, normal(*shape)) for fn in (qr_q, qr_r, qr_unpacked, qr_mode_r)
      for shape in [(4, 3), (3, 3), (2, 4, 3), (2, 3, 3), (3, 5), (2, 2, 4)]],
    Row(qr_complete_square, normal(3, 3), Const("complete")),
    Row(qr_complete_wide, normal(2, 4)),
    Row(qr_complete_square, normal(2, 3, 3), Const("reduced")),
]


# ---------------------------------------------------------------------------------------------
# pinv (tall, wide, square, stacked, hermitian) and lstsq (x, residuals, singular values)
# ---------------------------------------------------------------------------------------------
def pinv(x): return np.linalg.pinv(x)
def pinv_hermitian(x): return np.linalg.pinv(x, hermitian=True)
def pinv_rcond(x): return np.linalg.pinv(x, rcond=1e-10) ** 2
def lstsq_x(a, b): return np.linalg.lstsq(a, b)[0]
def lstsq_all(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x * _weights(x.shape)) + np.sum(residuals * _weights(residuals.shape)) \
        + np.sum(s ** 2 * _weights(s.shape)) + rank
def lstsq_residuals(a, b): return np.linalg.lstsq(a, b)[1]
def lstsq_values(a, b): return np.linalg.lstsq(a, b)[3]


LEAST_SQUARES_ROWS = [
    *[Row(pinv, normal(*shape)) for shape in [(4, 3), (3, 5), (3, 3), (2, 4, 3)]],
    Row(pinv_hermitian, normal(3, 3)), Row(pinv_hermitian, normal(2, 4, 4)),
    Row(pinv_rcond, normal(3, 4)),
    *[Row(fn, normal(*sa), normal(*sb)) for fn in (lstsq_x, lstsq_all)
      for sa, sb in [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 3), (3, 2)), ((3, 5), (3,))]],
    Row(lstsq_residuals, normal(5, 3), normal(5, 2)), Row(lstsq_residuals, normal(4, 2), normal(4)),
    Row(lstsq_values, normal(5, 3), normal(5)),
]


# ---------------------------------------------------------------------------------------------
# matrix_power (every integer power), multi_dot (1-D ends, constant factors), matrix_transpose
# ---------------------------------------------------------------------------------------------
def matrix_power(x, n): return np.linalg.matrix_power(x, n)
def multi_dot3(a, b, c): return np.linalg.multi_dot([a, b, c])
def multi_dot_repeated(a, b): return np.linalg.multi_dot([a, b, a.T, b])
def multi_dot_constant(a): return np.linalg.multi_dot((a, _weights((3, 3)), a))
def multi_dot_tuple(a, b): return np.linalg.multi_dot((a, b))
def np_matrix_transpose(x): return np.matrix_transpose(x) * _weights(np.shape(x)[:-2] + np.shape(x)[-1:] + np.shape(x)[-2:-1])
def linalg_matrix_transpose(x): return np.linalg.matrix_transpose(x) ** 2


CHAIN_ROWS = [
    *[Row(matrix_power, Conditioned(3, 3), Const(n)) for n in (0, 1, 2, 3, -1, -2)],
    Row(matrix_power, Conditioned(2, 4, 4), Const(3)), Row(matrix_power, Conditioned(2, 3, 3), Const(-3)),
    Row(multi_dot3, normal(3), normal(3, 4), normal(4, 2)),
    Row(multi_dot3, normal(2, 3), normal(3, 4), normal(4)),
    Row(multi_dot3, normal(3), normal(3, 4), normal(4)),
    Row(multi_dot3, normal(2, 3), normal(3, 3), normal(3, 5)),
    Row(multi_dot_repeated, normal(3, 3), normal(3, 3)), Row(multi_dot_constant, normal(3, 3)),
    Row(multi_dot_tuple, normal(2, 3), normal(3, 4)), Row(multi_dot_tuple, normal(3), normal(3)),
    Row(np_matrix_transpose, normal(2, 3)), Row(np_matrix_transpose, normal(2, 3, 4)),
    Row(linalg_matrix_transpose, normal(3, 4)),
]


# ---------------------------------------------------------------------------------------------
# cross (3- and 2-vectors, mixed, broadcast, on other axes) and vecdot
# ---------------------------------------------------------------------------------------------
def np_cross(a, b): return np.cross(a, b)
def cross_axes(a, b, axisa, axisb, axisc): return np.cross(a, b, axisa, axisb, axisc)
def cross_axis(a, b, axis): return np.cross(a, b, axis=axis)
def linalg_cross(a, b): return np.linalg.cross(a, b)
def linalg_cross_axis(a, b): return np.linalg.cross(a, b, axis=0)
def np_vecdot(a, b): return np.vecdot(a, b)
def vecdot_axis(a, b, axis): return np.vecdot(a, b, axis=axis)
def linalg_vecdot(a, b, axis): return np.linalg.vecdot(a, b, axis=axis)


# NumPy 2.5 no longer takes 2-element vectors in np.cross (deprecated since 2.0)
TWO_VECTORS = np.lib.NumpyVersion(np.__version__) < "2.5.0"
VECTOR_ROWS = [
    *[Row(np_cross, normal(*sa), normal(*sb)) for sa, sb in [
        ((3,), (3,)), ((4, 3), (3,)), ((2, 1, 3), (4, 3)), ((2,), (2,)), ((4, 2), (4, 2)),
        ((2,), (3,)), ((4, 3), (2,))] if TWO_VECTORS or sa[-1] == sb[-1] == 3],
    *([Row(cross_axes, normal(3, 4), normal(4, 2), Const(0), Const(1), Const(0))]
      if TWO_VECTORS else []),
    Row(cross_axes, normal(3, 4), normal(4, 3), Const(0), Const(-1), Const(-1)),
    Row(cross_axis, normal(3, 4), normal(3, 4), Const(0)),
    Row(linalg_cross, normal(4, 3), normal(3)), Row(linalg_cross_axis, normal(3, 2), normal(3, 2)),
    Row(np_vecdot, normal(4, 3), normal(3)), Row(np_vecdot, normal(3), normal(3)),
    Row(vecdot_axis, normal(3, 4), normal(3, 4), Const(0)),
    Row(vecdot_axis, normal(2, 3, 4), normal(3, 1), Const(-2)),
    Row(linalg_vecdot, normal(2, 4), normal(4), Const(-1)),
    Row(linalg_vecdot, normal(3, 2), normal(3, 2), Const(0)),
]


# ---------------------------------------------------------------------------------------------
# vector_norm (every ord, over no, one or several axes), matrix_norm (every ord), cond (every p)
# ---------------------------------------------------------------------------------------------
def vector_norm(x, ord, axis, keepdims):
    return np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
def vector_norm_default(x): return np.linalg.vector_norm(x)
def matrix_norm(x, ord, keepdims): return np.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
def matrix_norm_default(x): return np.linalg.matrix_norm(x)
def cond(x, p): return np.linalg.cond(x, p)
def cond_default(x): return np.linalg.cond(x)


VECTOR_ORDS = [2, 1, np.inf, -np.inf, 0, 3, 0.5, -1.5]
MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]
NORM_ROWS = [
    *[Row(vector_norm, Apart(*shape), Const(ord), Const(axis), Const(keepdims))
      for ord in VECTOR_ORDS for shape, axis, keepdims in [((2, 3, 4), (0, 2), False),
                                                           ((2, 3), None, True)]],
    Row(vector_norm, Apart(2, 3, 4), Const(2), Const(-1), Const(False)),
    Row(vector_norm, Apart(3, 4), Const(np.inf), Const(0), Const(True)),
    Row(vector_norm, Apart(3, 4), Const(1), Const((1, 0)), Const(False)),
    Row(vector_norm_default, normal(5)), Row(vector_norm_default, normal(3, 4)),
    *[Row(matrix_norm, Arg("distinct", shape), Const(ord), Const(keepdims))
      for ord in MATRIX_ORDS for shape, keepdims in [((3, 4), False), ((2, 4, 3), True)]],
    Row(matrix_norm_default, normal(2, 3, 4)),
    *[Row(cond, Conditioned(*shape, spread=True), Const(p)) for p in [None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf]
      for shape in [(3, 3), (2, 4, 4)]],
    Row(cond, normal(4, 3), Const(None)), Row(cond, normal(2, 3, 5), Const(-2)),
    Row(cond_default, Conditioned(3, 3, spread=True)),
]


# ---------------------------------------------------------------------------------------------
# eig and eigvals of general real matrices with real eigenvalues
# ---------------------------------------------------------------------------------------------
def eig_values(x): return np.linalg.eig(x)[0]
def eig_vectors(x): return np.linalg.eig(x)[1]
def eig_unpacked(x):
    w, v = np.linalg.eig(x)
    return v * np.expand_dims(np.sin(w), -2)
def eigvals(x): return np.linalg.eigvals(x)
def eigvals_sorted(x): return np.sort(np.linalg.eigvals(x))


EIG_ROWS = [Row(fn, RealSpectrum(*shape)) for fn in (eig_values, eig_vectors, eig_unpacked, eigvals)
            for shape in [(3, 3), (2, 4, 4)]] + [Row(eigvals_sorted, RealSpectrum(4, 4))]


# the helpers of these rules, in both modes (qr_factors has a tangent only: forward over reverse)
QR_FACTORS = Const(tuple(np.linalg.qr(np.arange(12.0).reshape(4, 3) ** 1.5 + np.eye(4, 3))),
                   "qr(arange(12)**1.5+eye)")
def rt_qr_cotangents(gq, gr, factors):
    parts = runtime.qr_cotangents((gq, gr), factors, "reduced")
    return parts[0] * 2.0 + np.sum(parts[1])
def rt_qr_cotangents_r(gr, factors):
    parts = runtime.qr_cotangents(gr, factors, "r")
    return parts[0] + np.sum(parts[1] ** 2)
def rt_qr_cotangents_back(gq, gr, factors, mode):
    parts = runtime.qr_cotangents_back((gq, gr), factors, mode)
    return parts if mode == "r" else parts[0] * 3.0 + np.sum(parts[1])
def rt_residual_spread(g, r): return runtime.residual_spread(g, r)
def rt_residual_gather(h, r, like): return runtime.residual_gather(h, r, like)


def rt_eig_factors(w, v): return runtime.eig_factors((w, v), v * 0)[0] * 2.0 + runtime.eig_factors((w, v), v * 0)[1]
def rt_real_spectrum(w): return runtime.real_spectrum(w + 0j) * 2.0
def rt_real_spectrum_checked(g, r): return runtime.real_spectrum_checked(g, r) ** 2
def rt_dual_block(a, e): return runtime.dual_block(a, e)
def rt_upper_right(m): return runtime.upper_right(m)
def rt_block_diagonal_sum(m): return runtime.block_diagonal_sum(m)


def rt_cross_grad_a(g, a, b, axes):
    return runtime.cross_grad_a(g, a, b, axes[0], axes[1], axes[2], axes[3])
def rt_cross_grad_b(g, a, b, axes):
    return runtime.cross_grad_b(g, a, b, axes[0], axes[1], axes[2], axes[3])


HELPER_ROWS = [
    Row(rt_eig_factors, normal(3), normal(3, 3)),
    Row(rt_real_spectrum, normal(3)), Row(rt_real_spectrum_checked, normal(3), normal(3)),
    *[Row(fn, normal(*sg), normal(*sa), normal(*sb), Const(axes))
      for fn in (rt_cross_grad_a, rt_cross_grad_b) for sg, sa, sb, axes in [
          ((4, 3), (4, 3), (3,), (-1, -1, -1, None)), ((4,), (4, 2), (2,), (-1, -1, -1, None)),
          ((3, 4), (3, 4), (4, 2), (0, 1, 0, None)), ((3, 4), (3, 4), (3, 4), (-1, -1, -1, 0))]
      if TWO_VECTORS or 2 not in (sa[axes[0]], sb[axes[1]])],
    Row(rt_dual_block, normal(3, 3), normal(3, 3)), Row(rt_dual_block, normal(2, 2, 2), normal(2, 2, 2)),
    Row(rt_upper_right, normal(4, 4)), Row(rt_upper_right, normal(2, 6, 6)),
    Row(rt_block_diagonal_sum, normal(4, 4)), Row(rt_block_diagonal_sum, normal(2, 6, 6)),
    Row(rt_qr_cotangents, normal(4, 3), normal(3, 3), QR_FACTORS),
    Row(rt_qr_cotangents_r, normal(3, 3), QR_FACTORS),
    Row(rt_qr_cotangents_back, normal(4, 3), normal(3, 3), QR_FACTORS, Const("reduced")),
    Row(rt_qr_cotangents_back, normal(4, 3), normal(3, 3), QR_FACTORS, Const("r")),
    Row(rt_residual_spread, normal(2), normal(4, 2)), Row(rt_residual_spread, normal(1), normal(4, 1)),
    Row(rt_residual_spread, normal(0), normal(3, 2)),
    Row(rt_residual_gather, normal(4, 2), normal(4, 2), Const(np.zeros(2), "zeros[2]")),
    Row(rt_residual_gather, normal(3, 1), normal(3, 1), Const(np.zeros(1), "zeros[1]")),
    Row(rt_residual_gather, normal(3, 2), normal(3, 2), Const(np.zeros(0), "zeros[0]")),
]


def rt_qr_factors(a, mode):
    f = runtime.qr_factors(np.linalg.qr(a, mode), a, mode)
    return f[0] * 2.0 + np.sum(f[1] ** 2)


def rt_multi_dot_grads(g, a, b, c):
    parts = runtime.multi_dot_grads(g, [a, b, c])
    return np.sum(parts[0] ** 2) + np.sum(np.sin(parts[1])) + parts[2] * 2.0


TANGENT_ONLY_ROWS = [
    *[Row(rt_qr_factors, normal(*shape), Const(mode))
      for shape, mode in [((4, 3), "reduced"), ((3, 3), "r"), ((2, 4, 3), "r")]],
    Row(rt_multi_dot_grads, normal(2), normal(3), normal(3, 4), normal(4, 2)),
    Row(rt_multi_dot_grads, normal(2, 2), normal(2, 3), normal(3, 4), normal(4, 2)),
]

RULE_ROWS = QR_ROWS + LEAST_SQUARES_ROWS + CHAIN_ROWS + VECTOR_ROWS + NORM_ROWS + EIG_ROWS
ROWS = RULE_ROWS + HELPER_ROWS


@pytest.mark.parametrize("row", table(*ROWS))
def test_reverse(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*ROWS, *TANGENT_ONLY_ROWS))
def test_forward(row):
    check_tangent_row(row)


@pytest.mark.parametrize("row", table(*ROWS))
def test_vjp_and_jvp_are_transposes(row):
    core.test_vjp_and_jvp_are_transposes(row)


# autograd's np.cross adjoint neither sums over broadcast axes nor takes mixed 2- and 3-vectors:
# central differences of the function give the independent gradient there
AUTOGRAD_DIFFERS = {"np_cross", "cross_axes"}


@pytest.mark.parametrize("row", table(*RULE_ROWS))
def test_second_order(row):
    core.check_second_order_row(row, by_autograd=row.fn.__name__ not in AUTOGRAD_DIFFERS)


# HIPS autograd's gradients of the same functions: an oracle s2s_ad had no part in
@pytest.mark.parametrize("row", table(
    Row(pinv, normal(4, 3)), Row(pinv, normal(2, 3, 5)), Row(np_cross, normal(4, 3), normal(4, 3)),
    Row(cross_axis, normal(3, 4), normal(3, 4), Const(0)),
    Row(eig_unpacked, RealSpectrum(3, 3)),
    Row(eig_unpacked, RealSpectrum(2, 4, 4)),
    Row(eig_values, RealSpectrum(4, 4))))
def test_against_autograd(row):
    core.test_against_autograd(row)


# ---------------------------------------------------------------------------------------------
# every rule of these templates is reached by a row; what is not supported is refused
# ---------------------------------------------------------------------------------------------
def test_every_rule_in_these_templates_has_a_row(monkeypatch):
    """A rule added to these templates without a row above fails here: adjoints reached by the
    rows in reverse mode, tangents by the rows in forward mode."""
    built = rows_built(ROWS, TANGENT_ONLY_ROWS)
    untested = untested_rules(monkeypatch, MODULES, built)
    assert not untested, f"rules without a row: {untested}"


def qr_complete_tall(x): return np.sum(np.linalg.qr(x, mode="complete")[0])
def qr_raw(x): return np.sum(np.linalg.qr(x, mode="raw")[1])


@pytest.mark.parametrize("fn, shape, message", [
    (qr_complete_tall, (4, 3), "mode='complete'"), (qr_raw, (3, 3), "mode='raw'")])
def test_qr_refuses_what_has_no_derivative(fn, shape, message):
    """Refused when the derivative runs (only then is the shape known), in both modes."""
    x = np.random.default_rng(3).standard_normal(shape)
    with pytest.raises(ad.TransformError, match=message):
        ad.grad(fn)(x)
    with pytest.raises(ad.TransformError, match=message):
        ad.jvp(fn)(x, tangent=np.ones(shape))


def vecdot_keepdims(a, b): return np.sum(np.vecdot(a, b, keepdims=True))
def vecdot_axes(a, b): return np.sum(np.vecdot(a, b, axes=[(0,), (0,), ()]))


@pytest.mark.parametrize("fn, keyword", [(vecdot_keepdims, "keepdims"), (vecdot_axes, "axes")])
def test_keywords_the_rules_do_not_read_are_refused(fn, keyword):
    """Refused when the derivative is made, before anything runs, in both modes."""
    a, b = np.ones((2, 3)), np.ones((2, 3))
    # the words differ where NumPy's own vecdot has no such keyword (before NumPy 2.4)
    refused = f"`{keyword}` would be ignored|unexpected keyword argument '{keyword}'"
    with pytest.raises(ad.TransformError, match=refused):
        ad.grad(fn)(a, b)
    with pytest.raises(ad.TransformError, match=refused):
        ad.jvp(fn)(a, b, tangent=a)


# real outputs: grad of a complex one is refused before the backward pass (test_complex.py)
def rotation_like(x): return np.real(np.sum(np.linalg.eigvals(x) ** 2))
def rotation_like_vectors(x): return np.real(np.sum(np.linalg.eig(x)[1] ** 2))
def rotation_as_complex(x): return np.real(np.sum(np.linalg.eigvals(x.reshape(3, 3).astype(complex)) ** 3))
def rotation_vectors_as_complex(x):
    w, v = np.linalg.eig(x.reshape(3, 3) + 0j)
    return np.sum(np.abs(v * np.sin(w)) ** 2)


# NumPy 2.5 and later return complex arrays from eig for every matrix: the transform follows
# them as complex values from the start (CI runs both NumPy 2.4, with Python 3.11, and 2.5)
COMPLEX_EIG = runtime.COMPLEX_EIGENVALUES


@pytest.mark.skipif(COMPLEX_EIG, reason="NumPy 2.5+: eig's values are complex for every "
                                        "matrix and differentiated as such (next test)")
@pytest.mark.parametrize("fn", [rotation_like, rotation_like_vectors])
def test_complex_eigenvalues_of_a_real_matrix_are_refused(fn):
    """A real matrix with complex eigenvalues where NumPy returns real arrays for a real
    spectrum (before 2.5): what reads them was checked for real values only, so the derivative
    refuses them when it runs, in both modes, naming the line and the way out (a complex
    matrix), never a derivative of the real parts alone."""
    x = np.array([[0.1, -1.0], [1.0, 0.2]])
    with pytest.raises(ad.errors.ComplexValue, match="real matrix has complex eigenvalues") as info:
        ad.grad(fn)(x)
    assert "astype(complex)" in info.value.hint
    with pytest.raises(ad.errors.ComplexValue, match="real matrix has complex eigenvalues"):
        ad.jvp(fn)(x, tangent=np.ones((2, 2)))


def rotation_like_flat(x): return rotation_like(x.reshape(3, 3))
def rotation_vectors_flat(x):
    w, v = np.linalg.eig(x.reshape(3, 3))
    return np.sum(np.abs(v * np.sin(w)) ** 2)


@pytest.mark.skipif(not COMPLEX_EIG, reason="before NumPy 2.5 eig of a real spectrum is real "
                                            "(previous test)")
@pytest.mark.parametrize("fn", [rotation_like_flat, rotation_vectors_flat])
def test_complex_eigenvalues_of_a_real_matrix_from_numpy_2_5(fn):
    """NumPy 2.5 and later: eig's values are complex for a real matrix too, followed as such
    from where eig writes them; complex eigenvalues are differentiated in every mode (the
    gradient of the real matrix is the real part, README "Complex numbers")."""
    x = np.array([0.1, -1.0, 0.3, 1.0, 0.2, 0.0, 0.2, 0.1, 1.5])
    check_every_mode(fn, x, autograd_runs=False)


@pytest.mark.parametrize("fn", [rotation_as_complex, rotation_vectors_as_complex])
def test_complex_eigenvalues_of_a_matrix_passed_as_complex(fn):
    """The way out: the same real matrix cast to complex, differentiated in every mode (the
    gradient of the real matrix is the real part, README "Complex numbers")."""
    x = np.array([0.1, -1.0, 0.3, 1.0, 0.2, 0.0, 0.2, 0.1, 1.5])
    check_every_mode(fn, x, autograd_runs=False)
