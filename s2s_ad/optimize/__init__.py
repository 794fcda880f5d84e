"""Clean-up passes on generated code: each keeps the results, and makes the code shorter."""
import gast

from .accumulate_in_place import AccumulateInPlace
from .fold_constants import FoldConstants
from .fold_temporaries import FoldTemporaries, NameCounts
from .propagate_copies import PropagateCopies


def optimize(function, names, entry_is_number=None):
    """Clean up `function`; `names` maps the generated code's helper names to their objects
    (a pass that calls a new helper adds it there); `entry_is_number(x, index)`: is `x[index]`
    known to be a real number (analysis.shapes)?"""
    counts = NameCounts()              # filled on constant folding's walk, for FoldTemporaries
    function = FoldConstants().run(function, also={gast.Name: counts.add})
    function = FoldTemporaries().run(function, counts)
    function = PropagateCopies().run(function, counts)
    return AccumulateInPlace(names, entry_is_number).run(function)
