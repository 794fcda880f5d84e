"""Forward mode: run the primal, and right after each active assignment compute its tangent.

`v = op(a, b)` is followed by `dv = <tangent rule of op>`, a sum with one term per input; the
terms of inputs without a tangent are dropped. Control flow is kept as written (no tape).

Tangents are tracked statically as present or absent: a variable whose tangent is zero simply
has none, and later uses drop its terms. Where control flow joins paths that disagree, the
missing tangent is materialized (`dv = zero_tangent(v)`), but only for variables that are read
later and may be bound on that path.

An in-place write `x[i] = v` becomes `dx[i] = dv` on a tangent that is an array of its own:
`dx` is copied first (`dx = tangent_copy(dx)`) unless it was made fresh here and no tangent
still in use may view it (tracked per program point), so a loop that fills an array row by row
costs no more than the primal. Writes into a view of another array are refused. Lists that grow
(`xs.append(v)`) carry a parallel list of tangents, which also serves the tape of reverse-mode
code: forward over the generated gradient gives Hessian-vector products.

The package, by job: `body_facts` (tapes, activity, in-place updates: facts gathered before
emission), `views` (may this name view that array; the refusals of writes through a view),
`tangent_names` (x -> dx), `state` and `tangent_memory` (which tangents are nonzero, owned,
or may view each other at each point), `statements`, `control_flow` and `calls` (the emitter:
one visit method per statement kind), `tangent_rule` and `rule_terms` (filling in a tangent
rule), `mode` (assembly: `ForwardMode.build`).
"""
from .mode import ForwardMode

__all__ = ["ForwardMode"]
