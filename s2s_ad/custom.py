"""Public registration of custom rules: `@s2s_ad.adjoint(fn)` and `@s2s_ad.tangent(fn)`."""
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
