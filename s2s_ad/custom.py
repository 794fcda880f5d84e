"""Public registration of custom rules: `@s2s_ad.adjoint(fn)` and `@s2s_ad.tangent(fn)`; and
`@s2s_ad.checkpoint`, which asks derivatives to recompute a function rather than keep its values."""
import types

from . import cache, rules


def adjoint(*primals):
    """Register a reverse-mode rule for `primals`, written as a template.

    The template's first parameter is the primal's result, the rest are its parameters (checked
    against the primal's signature); `d[v]` is the adjoint of `v`::

        @s2s_ad.adjoint(softplus)
        def _(y, x):
            d[x] = d[y] / (1 + np.exp(-x))
    """
    def register(template):
        rules.adjoint(*primals, validate=True)(template)
        cache.clear()        # derivatives made before the rule existed would not use it
        return template
    return register


def tangent(*primals):
    """Register a forward-mode rule for `primals`: `d[v]` is the tangent of `v`::

        @s2s_ad.tangent(softplus)
        def _(y, x):
            d[y] = d[x] / (1 + np.exp(-x))
    """
    def register(template):
        rules.tangent(*primals, validate=True)(template)
        cache.clear()
        return template
    return register


def checkpoint(fn):
    """Mark a function so that derivatives recompute it in the backward pass instead of keeping
    the values its backward pass reads: memory for time, as `jax.checkpoint` does. Use it as a
    decorator (`@s2s_ad.checkpoint`) or at a call (`s2s_ad.checkpoint(block)(x)`).

    Returns a copy of `fn` carrying the mark (`fn` itself is left as it was); it computes what
    `fn` computes. A checkpointed callee runs twice per derivative call: one that draws random
    numbers is refused at its call (analysis/random_draws.py); keep state changes out of it."""
    marked = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                fn.__closure__)
    marked.__kwdefaults__ = fn.__kwdefaults__
    marked.__dict__.update(fn.__dict__)
    marked.__qualname__ = fn.__qualname__
    marked.__doc__ = fn.__doc__
    marked.__s2s_checkpoint__ = True
    return marked
