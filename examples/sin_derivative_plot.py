"""Plot sin(x) and its derivative computed by s2s_ad (without using that sin' = cos).

This is an exercise of the classic autograd chapter. The derivative comes from the generated
code, and it is checked against cos(x) two ways: one `vjp` over the whole grid (a seed of
ones picks out the elementwise derivative, since sin acts on each point separately) and one
`grad` per point. The plot needs matplotlib; without it the script still computes and checks
everything and says that it skipped the plot.

Run: python examples/sin_derivative_plot.py [OUT.png]
"""
import os
import sys
import tempfile

import numpy as np

import s2s_ad as ad


def f(x):
    return np.sin(x)


def derivative_on_grid(x):
    """d sin(x) / dx at every point of `x`, from one vjp with a seed of ones."""
    _, dx = ad.vjp(f)(x, seed=np.ones_like(x))
    return dx


def derivative_per_point(x):
    """The same derivative, one scalar `grad` call per point."""
    df = ad.grad(f)
    return np.array([df(float(point)) for point in x])


def plot(x, y, dy, path):
    """Save a plot of sin and its derivative to `path`; return False if matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(x, y, label="f(x) = sin(x)")
    ax.plot(x, dy, "--", label="df/dx from s2s_ad")
    ax.set_xlabel("x")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    x = np.linspace(-2 * np.pi, 2 * np.pi, 201)
    y = f(x)
    dy = derivative_on_grid(x)
    error = np.max(np.abs(dy - np.cos(x)))
    print(f"max |df/dx - cos(x)| on {x.size} points (vjp, seed of ones): {error:.2e}")
    assert error < 1e-12, error
    pointwise = derivative_per_point(x[::20])
    error = np.max(np.abs(pointwise - np.cos(x[::20])))
    print(f"max |df/dx - cos(x)| on {pointwise.size} points (grad per point): {error:.2e}")
    assert error < 1e-12, error
    print("the derivative of sin is cos")

    path = argv[0] if argv else os.path.join(tempfile.mkdtemp(prefix="s2s_ad_"), "sin_derivative.png")
    if plot(x, y, dy, path):
        print(f"plot saved to {path}")
    else:
        print("matplotlib is not installed: skipped the plot (pip install matplotlib)")


if __name__ == "__main__":
    main()
