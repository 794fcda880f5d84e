"""Third and fourth derivatives: the derivative of generated code that itself differentiates
generated code (tapes of tapes, list adjoints cut short, in-place accumulation), checked against
HIPS autograd's nested grad, or a closed form where autograd cannot run the program."""
import autograd
import autograd.numpy as anp
import numpy
import pytest

import s2s_ad as ad


def _both(source):
    """The program `source` (a function `f` using `np`) with NumPy and with autograd's NumPy."""
    ours, theirs = {"np": numpy}, {"np": anp}
    exec(compile(source, f"<deep order {source.split('(')[0][4:]}>", "exec"), theirs)
    return source, theirs["f"]


PROGRAMS = {
    "sine": "def f(x):\n    return np.sin(x)\n",
    "loop": ("def f(x):\n    y = x\n    for i in range(3):\n        y = np.sin(y) * x\n"
             "    return y\n"),
    "while": ("def f(x):\n    y = x\n    n = 0\n    while n < 3:\n"
              "        y = y * np.cos(y) + x\n        n = n + 1\n    return y\n"),
    "list_stack": ("def f(x):\n    acc = []\n    for i in range(3):\n"
                   "        acc.append(np.sin(x * (i + 1)))\n    total = 0.0\n    while acc:\n"
                   "        total = total + acc.pop() ** 2\n    return total\n"),
    "array": "def f(x):\n    v = np.arange(1.0, 4.0)\n    return np.sum(np.tanh(x * v) ** 2)\n",
    "branch": ("def f(x):\n    if x > 0.2:\n        y = np.log(1.0 + x * x)\n    else:\n"
               "        y = x ** 3\n    return y * np.exp(x)\n"),
}


@pytest.fixture
def as_module(tmp_path, monkeypatch):
    """Write a program to a module file (s2s_ad reads source) and import its `f`."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def load(name, source):
        (tmp_path / f"deep_{name}.py").write_text("import numpy as np\n\n" + source)
        module = __import__(f"deep_{name}")
        return module.f
    return load


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nested_grad_matches_autograd(as_module, name):
    """The third and the fourth derivative, one nested on the other (each order made once)."""
    source, reference = _both(PROGRAMS[name])
    ours = as_module(name, source)
    for order in range(1, 5):
        ours, reference = ad.grad(ours), autograd.grad(reference)
        if order >= 3:
            for x in (0.37, -0.8):
                assert numpy.isclose(ours(x), reference(x), rtol=1e-8, atol=1e-10), order


def rows_written_in_a_loop(x):
    a = numpy.zeros(4)
    for i in range(4):
        a[i] = numpy.exp(x * i / 4.0)
    return numpy.sum(a * a) + a[2] * a[1]


def test_fourth_derivative_through_rows_written_in_a_loop():
    # f = sum_i exp(x i / 2) + exp(3 x / 4), so the k-th derivative is a closed form
    def exact(x, k):
        return sum((i / 2.0) ** k * numpy.exp(x * i / 2.0) for i in range(4)) \
            + 0.75 ** k * numpy.exp(0.75 * x)
    g = rows_written_in_a_loop
    for k in range(1, 5):
        g = ad.grad(g)
        assert numpy.isclose(g(0.37), exact(0.37, k), rtol=1e-10)


def looped_vector(x):
    y = x
    for _ in range(2):
        y = numpy.tanh(y) * x[0] + y[::-1]
    return numpy.sum(y ** 2)


def test_jacobian_of_hessian_through_a_loop_matches_autograd():
    def reference(x):
        y = x
        for _ in range(2):
            y = anp.tanh(y) * x[0] + y[::-1]
        return anp.sum(y ** 2)
    x = numpy.array([0.3, -0.5, 0.8])
    ours = ad.jacobian(ad.hessian(looped_vector))(x)
    numpy.testing.assert_allclose(ours, autograd.jacobian(autograd.hessian(reference))(x),
                                  rtol=1e-9, atol=1e-12)
