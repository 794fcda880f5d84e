"""InPlaceConversions: where normal form spells out NumPy's conversion of an in-place write.

Normal form writes `z op= v` as `z = z op v` and keeps `k[i] = v`; NumPy writes into the
array, in its dtype and shape. Where the dtype facts (analysis.dtypes) do not show the
conversion to change nothing, ToNormalForm asks this object for the helper to call:

    z op= v      z = updated_in_place(z, z op v)        unless z surely is a number
    k[i] = v     k[i] = stored_as(v, k)                 unless k surely holds inexact values
    k[i] op= v   both, the update on the item k[i]      unless k surely holds inexact values
                 (of a list or dict, the update only: the entry is replaced, not converted)

The derivatives that is itself differentiated were converted when it was made: its own code
is left as it is.
"""
from .. import runtime
from ..analysis.container_kinds import container_kinds
from ..analysis.dtypes import DtypeFacts


class InPlaceConversions:

    def __init__(self, parsed, namer, params, wrt, resolve):
        self.parsed, self.namer = parsed, namer
        self.params, self.wrt, self.resolve = params, wrt, resolve
        self.facts = None
        self.containers = set()
        self.bound = {}                 # fresh name -> helper, for the generated code's globals

    def prepare(self, body):
        """Compute the facts for the body about to be put in normal form."""
        if not self.parsed.generated:
            self.facts = DtypeFacts(body, self.params, self.wrt, self.resolve)
            # a list, tuple or dict is rebound or has an entry replaced: nothing to convert
            self.containers = set(container_kinds(body, self.params, self.parsed.namespace))

    def updated(self, name):
        """The helper `z op= v` on `name` is converted by, or None."""
        if self.facts is None or name in self.facts.numbers or name in self.containers:
            return None
        return self._bind("updated_in_place", runtime.updated_in_place)

    def item_updated(self, container):
        """The helper `container[i] op= v` updates the item by, or None: an entry of a list
        or dict may be an array, written into in place; so may a view of an array whose
        dtype is not surely inexact."""
        if self.facts is None or container in self.facts.inexact and \
                container not in self.containers:
            return None
        return self._bind("updated_in_place", runtime.updated_in_place)

    def stored(self, name):
        """The helper a store into `name` is converted by, or None."""
        if self.facts is None or name in self.facts.inexact or name in self.containers:
            return None
        return self._bind("stored_as", runtime.stored_as)

    def _bind(self, name, helper):
        fresh = next((k for k, v in self.bound.items() if v is helper), None)
        if fresh is None:
            fresh = self.namer.fresh(name)
            self.parsed.namespace[fresh] = self.bound[fresh] = helper
        return fresh
