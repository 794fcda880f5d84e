"""Clean-up passes on generated code: each keeps the results, and makes the code shorter."""
import gast

from .accumulate_in_place import AccumulateInPlace
from .add_into_owned import AddIntoOwned
from .array_methods import ArrayMethods
from .converted_gradients import ConvertedOnce
from .dict_entries import DictEntries
from .number_adjoints import NumberAdjoints
from .packed_entries import PackedEntries
from .fold_constants import FoldConstants
from .fold_temporaries import FoldTemporaries, NameCounts
from .inline_temporaries import InlineTemporaries
from .propagate_copies import PropagateCopies
from .shape_stand_ins import ShapeStandIns
from .spread_by_broadcasting import SpreadByBroadcasting


def optimize(function, names, entry_is_number=None, is_container=None, token=None,
             resolve=None, split_positions=None, returns_value=True, passed_plain=None):
    """Clean up `function`; `names` maps the generated code's helper names to their objects
    (a pass that calls a new helper adds it there); `entry_is_number(x, index)`: is `x[index]`
    known to be a real number, `is_container(name)`: does `name` always hold a dict with
    string keys, a list or a tuple, `token(name)`: its shape token (analysis.shapes); `resolve(name)`: the object a
    global name stands for; `split_positions(obj)`: for a callee's `fwd_<callee>`, the
    positions of the arguments its backward pass returns gradients for (calls.split_positions);
    `returns_value`: the function returns (value, gradients), not the gradients alone;
    `passed_plain(name)`: was an array or a number passed for the parameter `name`?"""
    counts = NameCounts()              # filled on constant folding's walk, for FoldTemporaries
    function = FoldConstants().run(function, also={gast.Name: counts.add})
    function = FoldTemporaries().run(function, counts)
    function = PropagateCopies().run(function, counts)
    function = PackedEntries(names).run(function)     # first: one call where it can be
    if is_container is not None:
        function = DictEntries(names, is_container).run(function)
    function = SpreadByBroadcasting(names).run(function)
    if token is not None and resolve is not None:
        function = ArrayMethods(token, resolve).run(function)
    if token is not None:
        function = NumberAdjoints(names, token).run(function)
    if split_positions is not None:
        function = ConvertedOnce(names, split_positions, returns_value, passed_plain).run(function)
    function = AddIntoOwned(names).run(function)
    function = AccumulateInPlace(names, entry_is_number, resolve, is_container).run(function)
    function = ShapeStandIns(names).run(function)
    return InlineTemporaries(resolve).run(function)
