"""The same derivatives on CuPy arrays: CuPy in, CuPy out, equal to the NumPy results.

Skips cleanly where CuPy or a GPU is missing (CI has neither).
"""
import numpy as np
import pytest

import cf_programs as C
import golden_programs as G
import programs as P
import s2s_ad as ad

cupy = pytest.importorskip("cupy")
try:
    cupy.cuda.runtime.getDeviceCount()
except Exception as exc:  # pragma: no cover - depends on the machine
    pytest.skip(f"no CUDA device: {exc}", allow_module_level=True)

rng = np.random.default_rng(11)


def _to_gpu(value):
    if isinstance(value, dict):
        return {k: _to_gpu(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return cupy.asarray(value)
    return value


def _same(gpu, cpu):
    if isinstance(cpu, dict):
        for key in cpu:
            _same(gpu[key], cpu[key])
        return
    assert isinstance(gpu, cupy.ndarray), type(gpu)
    assert gpu.dtype == np.asarray(cpu).dtype
    np.testing.assert_allclose(cupy.asnumpy(gpu), cpu, rtol=1e-6, atol=1e-9)


CASES = [
    (G.tanh_layer, lambda: (rng.normal(size=(4, 3)), rng.normal(size=4), rng.normal(size=3)), (0, 1)),
    (G.softmax_cross_entropy, lambda: (rng.normal(size=(5, 3)), np.array([0, 2, 1, 1, 0])), 0),
    (G.broadcast_bias, lambda: (rng.normal(size=(5, 3)), rng.normal(size=3)), (0, 1)),
    (G.indexing, lambda: (rng.normal(size=6),), 0),
    (G.einsum_bilinear, lambda: (rng.normal(size=(3, 4)), rng.normal(size=3), rng.normal(size=4)), 0),
    (G.reductions, lambda: (rng.normal(size=(3, 4)),), 0),
    (C.if_else, lambda: (rng.normal(size=4) + 2,), 0),
    (C.while_data, lambda: (rng.normal(size=4) * 0.3 + 1,), 0),
    (C.cumprod, lambda: (rng.normal(size=5) * 0.5 + 1,), 0),
    (C.rnn, lambda: (rng.normal(size=(6, 3)), rng.normal(size=(4, 4)) * 0.5,
                     rng.normal(size=(4, 3)) * 0.5), (1, 2)),
    (P.mlp_loss, lambda: ({"W1": rng.normal(size=(3, 5)), "b1": rng.normal(size=5),
                           "W2": rng.normal(size=(5, 2)), "b2": rng.normal(size=2)},
                          rng.normal(size=(4, 3)), rng.normal(size=(4, 2))), 0),
]


@pytest.mark.parametrize("fn, make, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_cupy_gradient_equals_numpy_gradient(fn, make, wrt):
    args = make()
    cpu = ad.grad(fn, wrt=wrt)(*args)
    gpu = ad.grad(fn, wrt=wrt)(*[_to_gpu(a) for a in args])
    if isinstance(wrt, tuple):
        for g, c in zip(gpu, cpu):
            _same(g, c)
    else:
        _same(gpu, cpu)


def test_float32_stays_float32_on_the_gpu():
    x = cupy.asarray(rng.normal(size=(4, 3)), dtype=cupy.float32)
    b = cupy.asarray(rng.normal(size=3), dtype=cupy.float32)
    gx, gb = ad.grad(G.broadcast_bias, wrt=(0, 1))(x, b)
    assert gx.dtype == cupy.float32 and gb.dtype == cupy.float32
