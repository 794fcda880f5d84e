"""np.linalg's decompositions (eigh, eigvalsh, svd, svdvals) and the helpers of their rules:
every row in reverse mode and forward mode against central differences, the vjp / jvp
dot-product identity, and second order (hvp against differences of an independent gradient).

Eigenvalues and singular values are drawn distinct (a random matrix has them apart), and
singular values nonzero: where two are equal the vectors have no derivative. The oracles of
second order are differences of first derivatives, so rows keep the eigenvalues apart."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad import rules, runtime
import test_rules as core            # its tests are called, not imported: pytest would run them here
from rule_coverage import rows_built, untested_rules
from test_rules import Arg, Const, Row, check_row, check_tangent_row, normal, table


# ---------------------------------------------------------------------------------------------
# the rows: the functions are module-level, s2s_ad reads their source
# ---------------------------------------------------------------------------------------------
def _apart(x): return x + 1.5 * np.diag(np.arange(x.shape[-1]))    # eigenvalues kept apart
def eigh_values(x): return np.linalg.eigh(_apart(x))[0]
def eigh_vectors(x): return np.linalg.eigh(_apart(x))[1]
def eigh_unpacked(x, uplo):
    w, v = np.linalg.eigh(_apart(x), uplo)
    return v * np.expand_dims(np.sin(w), -2)
def eigvalsh(x): return np.linalg.eigvalsh(_apart(x))
def eigvalsh_upper(x): return np.linalg.eigvalsh(_apart(x), UPLO="U")
def svd_u(x): return np.linalg.svd(x, full_matrices=False)[0]
def svd_s(x): return np.linalg.svd(x, full_matrices=False)[1]
def svd_vh(x): return np.linalg.svd(x, full_matrices=False)[2]
def svd_square(x):
    u, s, vh = np.linalg.svd(x)                 # full_matrices=True: the same on a square matrix
    return u * np.expand_dims(s, -2) + vh ** 2
def svd_values(x): return np.linalg.svd(x, compute_uv=False)
def svd_hermitian(x):
    u, s, vh = np.linalg.svd(x, hermitian=True)
    return u * np.expand_dims(s ** 2, -2) + vh
def svd_hermitian_values(x): return np.linalg.svd(x, compute_uv=False, hermitian=True)
def svdvals(x): return np.linalg.svdvals(x)


DECOMPOSITION_ROWS = [
    *[Row(fn, normal(*shape)) for fn in (eigh_values, eigh_vectors, eigvalsh, eigvalsh_upper)
      for shape in [(3, 3), (2, 4, 4)]],
    *[Row(eigh_unpacked, normal(*shape), Const(uplo)) for shape in [(3, 3), (2, 4, 4)]
      for uplo in ("L", "U")],
    *[Row(fn, normal(*shape)) for fn in (svd_u, svd_s, svd_vh)
      for shape in [(4, 3), (3, 5), (2, 3, 3), (2, 4, 3)]],
    Row(svd_square, normal(3, 3)), Row(svd_square, normal(2, 4, 4)),
    Row(svd_values, normal(4, 3)), Row(svd_values, normal(2, 3, 5)),
    Row(svd_hermitian, normal(4, 4)), Row(svd_hermitian, normal(2, 3, 3)),
    Row(svd_hermitian_values, normal(4, 4)),
    Row(svdvals, normal(3, 4)), Row(svdvals, normal(2, 4, 3)),
]


# the helpers of the rules, in both modes (svd_factors has a tangent only: forward over reverse)
def rt_inverse_gaps(w): return runtime.inverse_gaps(w)
def rt_symmetric_from(a, uplo): return runtime.symmetric_from(a, uplo)
def rt_symmetric_from_grad(g, uplo): return runtime.symmetric_from_grad(g, uplo)
def rt_hermitian_read(a, hermitian): return runtime.hermitian_read(a, hermitian)
def rt_hermitian_read_grad(g, hermitian): return runtime.hermitian_read_grad(g, hermitian)
def rt_svd_cotangents(gu, gs, gvh, factors):
    parts = runtime.svd_cotangents((gu, gs, gvh), factors, True)
    return parts[0] * np.expand_dims(parts[1], -2) + parts[2]
def rt_svd_cotangents_values(gs, factors):
    parts = runtime.svd_cotangents(gs, factors, False)
    return parts[0] + np.expand_dims(parts[1], -2) * parts[2]

def rt_svd_cotangents_back(ru, rs, rvh, factors):
    parts = runtime.svd_cotangents_back((ru, rs, rvh), factors, True)
    return parts[0] * np.expand_dims(parts[1], -2) + parts[2]
def rt_svd_cotangents_back_values(ru, rs, rvh, factors):
    return runtime.svd_cotangents_back((ru, rs, rvh), factors, False) * rs


FACTORS = Const(np.linalg.svd(np.arange(9.0).reshape(3, 3) ** 1.5, full_matrices=False),
                "svd(arange(9)**1.5)")
HELPER_ROWS = [
    Row(rt_inverse_gaps, Arg("distinct", (4,))), Row(rt_inverse_gaps, Arg("distinct", (2, 3))),
    *[Row(fn, normal(*shape), Const(uplo)) for fn in (rt_symmetric_from, rt_symmetric_from_grad)
      for shape, uplo in [((3, 3), "L"), ((2, 4, 4), "U"), ((3, 3), "u")]],
    *[Row(fn, normal(3, 3), Const(hermitian)) for fn in (rt_hermitian_read, rt_hermitian_read_grad)
      for hermitian in (True, False)],
    Row(rt_svd_cotangents, normal(3, 3), normal(3), normal(3, 3), FACTORS),
    Row(rt_svd_cotangents_values, normal(3), FACTORS),
    Row(rt_svd_cotangents_back, normal(3, 3), normal(3), normal(3, 3), FACTORS),
    Row(rt_svd_cotangents_back_values, normal(3, 3), normal(3), normal(3, 3), FACTORS),
]


def rt_svd_factors(a, compute_uv, hermitian):
    y = np.linalg.svd(a, compute_uv=compute_uv, hermitian=hermitian)
    f = runtime.svd_factors(y, a, True, compute_uv, hermitian)
    return f[0] * np.expand_dims(f[1], -2) + f[2] ** 2


TANGENT_ONLY_ROWS = [Row(rt_svd_factors, normal(*shape), Const(compute_uv), Const(hermitian))
                     for shape, compute_uv, hermitian in [
                         ((3, 3), True, False), ((2, 3, 3), False, False), ((4, 4), False, True),
                         ((3, 3), True, True)]]
ROWS = DECOMPOSITION_ROWS + HELPER_ROWS


# the direction of np.linalg.norm's spectral and nuclear norms moves through the SVD: its
# tangent is what hvp of those norms reads (their rows in test_rules.py check hvp itself)
def rt_spectral_direction(x, ord, axis):
    return runtime.norm_direction(x, np.linalg.norm(x, ord, axis), ord, axis)


NORM_DIRECTION_ROWS = [Row(rt_spectral_direction, normal(*shape), Const(ord), Const(axis))
                       for shape, ord, axis in [((3, 4), 2, None), ((4, 3), -2, None),
                                                ((3, 3), "nuc", None), ((2, 3, 4), 2, (2, 0)),
                                                ((2, 4, 3), "nuc", (1, 2)), ((3, 2, 4), -2, (0, 2))]]


@pytest.mark.parametrize("row", table(*ROWS))
def test_reverse(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*ROWS, *TANGENT_ONLY_ROWS, *NORM_DIRECTION_ROWS))
def test_forward(row):
    check_tangent_row(row)


@pytest.mark.parametrize("row", table(*ROWS))
def test_vjp_and_jvp_are_transposes(row):
    core.test_vjp_and_jvp_are_transposes(row)


@pytest.mark.parametrize("row", table(*DECOMPOSITION_ROWS))
def test_second_order(row):
    core.test_core_second_order(row)


def svd_reduced(x):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return np.matmul(u * np.expand_dims(s ** 2, -2), vh ** 3)


# HIPS autograd's gradients of the same functions: an oracle s2s_ad had no part in
@pytest.mark.parametrize("row", table(
    Row(eigh_unpacked, normal(4, 4), Const("L")), Row(eigh_unpacked, normal(2, 3, 3), Const("U")),
    Row(svd_reduced, normal(4, 3)), Row(svd_reduced, normal(2, 3, 5)),
    Row(svd_values, normal(3, 4))))
def test_against_autograd(row):
    core.test_against_autograd(row)


def test_every_rule_in_the_module_has_a_row(monkeypatch):
    """A rule added to templates/decompositions.py without a row above fails here: adjoints
    reached by the rows in reverse mode, tangents by the rows in forward mode."""
    built = rows_built(ROWS, TANGENT_ONLY_ROWS)
    untested = untested_rules(monkeypatch, ["decompositions"], built)
    assert not untested, f"rules without a row: {untested}"


def svd_full_wide(x):
    u, s, vh = np.linalg.svd(x)
    return np.sum(u) + np.sum(s) * np.sum(vh)


@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3)])
def test_svd_of_a_non_square_matrix_needs_full_matrices_false(shape):
    """Refused when the derivative runs (only then is the shape known), in both modes."""
    x = np.random.default_rng(3).standard_normal(shape)
    with pytest.raises(ad.TransformError, match="full_matrices=True"):
        ad.grad(svd_full_wide)(x)
    with pytest.raises(ad.TransformError, match="full_matrices=True"):
        ad.jvp(svd_full_wide)(x, tangent=np.ones(shape))
