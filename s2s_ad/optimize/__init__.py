"""Clean-up passes on generated code: each keeps the results, and makes the code shorter."""
from .fold_constants import FoldConstants
from .fold_temporaries import FoldTemporaries


def optimize(function):
    function = FoldConstants().visit(function)
    return FoldTemporaries().run(function)
