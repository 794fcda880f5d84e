"""The gradient of a least-squares loss over a chunked Dask array, on a Dask cluster.

The loss is written against NumPy; given Dask arrays, its derivative builds a lazy Dask graph
like the loss's own, and the cluster computes it chunk by chunk: the data never has to fit in
one chunk (or one machine). Here a LocalCluster of two worker processes stands in for a real
cluster; to use one, connect to its scheduler instead:

    client = Client("tcp://scheduler:8786")

    python examples/dask_gradient.py            (needs dask[array] and distributed)
"""
import sys

import numpy as np

import s2s_ad as ad

ROWS, FEATURES, CHUNK_ROWS = 40_000, 8, 5_000


def least_squares(w, X, y):
    r = X @ w - y
    return np.sum(r * r) / (2 * X.shape[0])


def main():
    try:
        import dask.array as da
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:
        print(f"skipped: {exc.name} is not installed (pip install 's2s-ad[dask]')")
        return
    rng = np.random.default_rng(0)
    X_host = rng.normal(size=(ROWS, FEATURES))
    w_true = rng.normal(size=FEATURES)
    y_host = X_host @ w_true + 0.1 * rng.normal(size=ROWS)
    w = np.zeros(FEATURES)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        X = da.from_array(X_host, chunks=(CHUNK_ROWS, FEATURES))
        y = da.from_array(y_host, chunks=CHUNK_ROWS)
        loss, grad = ad.value_and_grad(least_squares)(w, X, y)
        print(f"lazy gradient: {type(grad).__module__}.{type(grad).__name__} over "
              f"{X.numblocks[0]} chunks of {CHUNK_ROWS} rows")
        loss, grad = client.compute([loss, grad], sync=True)

    expected = X_host.T @ (X_host @ w - y_host) / ROWS       # the NumPy closed form
    error = np.max(np.abs(grad - expected)) / np.max(np.abs(expected))
    print(f"loss {loss:.4f}, gradient relative error against NumPy {error:.1e}")
    if error > 1e-10:
        sys.exit("the gradient differs from NumPy's")
    print("the cluster's gradient equals NumPy's")


if __name__ == "__main__":
    main()
