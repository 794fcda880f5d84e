"""s2s_ad: source-to-source automatic differentiation for NumPy and CuPy code."""
from .api import check_grad, clear_cache, grad, source, value_and_grad, vjp
from .api import hessian, hvp, jacobian, jvp
from .custom import adjoint, checkpoint, tangent
from .errors import TransformError
from .rules import d
from .runtime import no_grad, stop_gradient

__version__ = "0.1.0"

__all__ = ["grad", "value_and_grad", "vjp", "source", "check_grad", "clear_cache",
           "stop_gradient", "no_grad", "TransformError", "__version__",
           "jvp", "jacobian", "hessian", "hvp", "adjoint", "tangent", "checkpoint", "d"]
