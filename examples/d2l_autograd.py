"""The classic autograd tutorial chapter (d2l.ai, "Automatic Differentiation"), with s2s_ad.

Each section of the chapter is a module-level function below, differentiated by s2s_ad, and
`main()` walks through them in the chapter's order, printing and checking every result.

The chapter is written for a *tape* API: `x.attach_grad()` / `x.requires_grad_()`, then
`y.backward()`, then read `x.grad`. s2s_ad is *functional* instead: `ad.grad(f)` is a new
Python function that returns the gradient. Nothing is attached to `x`, nothing is recorded,
nothing accumulates between calls, and there is no `x.grad` to clear.

Run: python examples/d2l_autograd.py
"""
import numpy as np

import s2s_ad as ad


# 2.5.1 A simple function: y = 2 x^T x, so dy/dx = 4x.
def dot_twice(x):
    return 2 * x @ x


# ... and another function of the same x: y = sum(x), so dy/dx = ones.
def total(x):
    return np.sum(x)


# 2.5.2 Backward for non-scalar variables: y = x * x is a vector.
def square(x):
    return x * x


# 2.5.3 Detaching computation: u is treated as a constant, so d(u * x)/dx = u.
def detached(x):
    y = x * x
    u = ad.stop_gradient(y)
    z = u * x
    return np.sum(z)


# ... while y itself still depends on x: d(sum(x * x))/dx = 2x.
def not_detached(x):
    y = x * x
    return np.sum(y)


# 2.5.4 Gradients and Python control flow: the number of loop trips and the branch taken
# depend on the input, and s2s_ad differentiates the path that the input actually takes.
def f(a):
    b = a * 2
    while np.linalg.norm(b) < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


# Exercise: second derivatives. d^2/dx^2 x^3 = 6x.
def cube(x):
    return x ** 3


def check(label, got, expected):
    """Print a result and assert it matches what the chapter says."""
    print(f"{label}: {got}")
    assert np.allclose(got, expected), (label, got, expected)


def main():
    # --- 2.5.1 A simple function ---------------------------------------------------------------
    x = np.arange(4.0)
    print("x =", x)
    # Tape API: x.attach_grad(); with record(): y = 2 * dot(x, x); y.backward(); x.grad
    # s2s_ad: ad.grad(dot_twice) is an ordinary function that returns the gradient.
    d_dot_twice = ad.grad(dot_twice)
    print("y = 2 * x @ x =", dot_twice(x))
    check("gradient of 2 * x @ x (expect 4x)", d_dot_twice(x), 4 * x)

    # The generated code is plain Python you can read (and step through in pdb):
    print("generated code for the gradient of dot_twice:")
    print(ad.source(d_dot_twice))

    # Tape API: the chapter clears x.grad here (PyTorch accumulates into it).
    # s2s_ad: nothing accumulates, there is nothing to clear; each gradient is a fresh value.
    check("gradient of sum(x) (expect ones)", ad.grad(total)(x), np.ones_like(x))

    # --- 2.5.2 Backward for non-scalar variables -------------------------------------------------
    # `grad` needs a scalar output; for a vector y, `vjp` takes a seed (the chapter's
    # y.backward(gradient=ones)), which differentiates sum(y * seed).
    value, dx = ad.vjp(square)(x, seed=np.ones_like(x))
    print("y = x * x =", value)
    check("vjp of x * x with a seed of ones (expect 2x)", dx, 2 * x)
    try:
        ad.grad(square)(x)
    except TypeError as err:
        print("grad of a vector output is refused:", str(err).split(";")[0])

    # --- 2.5.3 Detaching computation -----------------------------------------------------------
    u = x * x
    check("gradient of sum(stop_gradient(x * x) * x) (expect u = x * x)", ad.grad(detached)(x), u)
    check("gradient of sum(x * x) (expect 2x)", ad.grad(not_detached)(x), 2 * x)

    # --- 2.5.4 Gradients and Python control flow -----------------------------------------------
    # f is piecewise linear in a: f(a) = k * a for a constant k that depends on the path taken,
    # so the gradient is f(a) / a.
    rng = np.random.default_rng(0)
    a = rng.normal(size=())
    d = f(a)
    check(f"gradient of f at a = {float(a):.4f} (expect f(a) / a)", ad.grad(f)(a), d / a)
    check("gradient of f at -a, which takes the other branch (expect f(-a) / -a)",
          ad.grad(f)(-a), f(-a) / -a)

    # --- Exercises -----------------------------------------------------------------------------
    # "Run the backward pass again right after the first one." With a tape, the second run
    # fails (the graph is freed) or doubles x.grad (it accumulates). s2s_ad has no tape and no
    # x.grad: calling the derivative again computes the same gradient again.
    first, second = d_dot_twice(x), d_dot_twice(x)
    check("gradient of 2 * x @ x, called a second time (same as the first)", second, first)

    # "What if a is a vector or a matrix?" Then f(a) is not a scalar: use vjp with a seed of
    # ones. f is still k * a elementwise, so the result is f(a) / a.
    for shape in [(3,), (2, 2)]:
        a = rng.normal(size=shape)
        value, da = ad.vjp(f)(a, seed=np.ones(shape))
        check(f"vjp of f for a of shape {shape} with a seed of ones (expect f(a) / a)",
              da, value / a)

    # "Why is the second derivative more expensive than the first?" Second derivatives work by
    # composition: ad.grad(ad.grad(g)) differentiates the generated first-derivative code.
    check("second derivative of x ** 3 at x = 2 (expect 6x = 12)",
          ad.grad(ad.grad(cube))(2.0), 12.0)
    print("all results match the chapter")


if __name__ == "__main__":
    main()
