"""Just enough of NumPy's interface over PyTorch tensors for the workloads to run unchanged
under PyTorch: the names they use, with NumPy's `axis`/`keepdims` and float64 by default."""
import torch

exp, log, tanh, linalg = torch.exp, torch.log, torch.tanh, torch.linalg


def zeros(shape):
    return torch.zeros(shape, dtype=torch.float64)


def arange(n):
    return torch.arange(n)


def _reduction(reduce_all, reduce_dim):
    def reduction(x, axis=None, keepdims=False):
        return reduce_all(x) if axis is None else reduce_dim(x, dim=axis, keepdim=keepdims)
    return reduction


sum = _reduction(torch.sum, torch.sum)          # noqa: A001 (NumPy's name)
mean = _reduction(torch.mean, torch.mean)
max = _reduction(torch.max, torch.amax)         # noqa: A001
