"""What a user writes inside a differentiated function to mark values as constants. The
transformer reads the calls; run as plain Python they change nothing."""
import contextlib


def stop_gradient(x):
    """Inside a differentiated function: treat `x` as a constant (PyTorch's `detach`)."""
    return x


@contextlib.contextmanager
def no_grad():
    """Inside a differentiated function: every value computed in the block is a constant."""
    yield
