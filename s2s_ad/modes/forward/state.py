"""What forward mode knows about tangents at one program point, and about the loop it is in."""
from ...analysis.flow import reachable


class TangentState:
    """At one program point: which variables hold a tangent, which may / must be bound, and
    whose tangent is an array of its own that nothing else refers to (safe to write into)."""

    def __init__(self, nonzero, maybe, definite, owned=(), aliases=None):
        self.nonzero = set(nonzero)
        self.maybe = set(maybe)
        self.definite = set(definite)
        self.owned = set(owned)
        self.aliases = {k: set(v) for k, v in (aliases or {}).items()}   # x -> who may view dx
        self.viewed = {}                                            # v -> whose dx dv may view
        for source, holders in self.aliases.items():
            for holder in holders:
                self.viewed.setdefault(holder, set()).add(source)

    def copy(self):
        return TangentState(self.nonzero, self.maybe, self.definite, self.owned, self.aliases)

    def forget(self, variable):
        """`variable`'s tangent is a new object: it views nothing, and nothing views it."""
        for holder in self.aliases.pop(variable, ()):
            self.viewed[holder].discard(variable)
        for source in self.viewed.pop(variable, ()):
            self.aliases[source].discard(variable)

    def alias(self, source, holder):
        if source != holder:
            self.aliases.setdefault(source, set()).add(holder)
            self.viewed.setdefault(holder, set()).add(source)

    def viewers(self, variable):
        """Variables whose tangents may hold (part of) `variable`'s tangent, transitively."""
        return reachable(self.aliases, variable) - {variable}



def merge_aliases(states):
    """Who may view whose tangent on any of `states` (the join of paths)."""
    merged = {}
    for state in states:
        for key, holders in state.aliases.items():
            merged.setdefault(key, set()).update(holders)
    return merged


class LoopContext:
    """The loop being transformed: its head state and where `break` / `continue` go."""

    def __init__(self, head_live, exit_live):
        self.head_live = head_live
        self.exit_live = exit_live
        self.entry = None
        self.jumps = []                   # (state, is_break) at each break / continue
