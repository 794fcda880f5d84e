"""Clean-up passes on generated code: each keeps the results, and makes the code shorter."""
from .accumulate_in_place import AccumulateInPlace
from .fold_constants import FoldConstants
from .fold_temporaries import FoldTemporaries


def optimize(function, names):
    """Clean up `function`; `names` maps the generated code's helper names to their objects
    (a pass that calls a new helper adds it there)."""
    function = FoldConstants().run(function)
    function = FoldTemporaries().run(function)
    return AccumulateInPlace(names).run(function)
