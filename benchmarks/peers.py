"""The other AD tools, each differentiating the workload's own source: HIPS autograd, JAX and
PyTorch run it with `np` bound to their NumPy-like module (autograd.numpy, jax.numpy, a thin
shim over torch); tangent-ad, source-to-source like s2s_ad, reads the NumPy source itself.
A peer that is not installed is reported as such, never an error."""
import types
import warnings

import numpy as np

from contenders import CannotTrace, NotInstalled, Prepared
from selfcheck import assert_agrees
from trees import chosen, leaves, replace_leaves, tree_map


def rebind(fn, np_like):
    """`fn` with `np` bound to `np_like`, and so are the functions of its module it calls."""
    old = fn.__globals__
    new = dict(old, np=np_like)
    for name, value in old.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is old:
            new[name] = types.FunctionType(value.__code__, new, value.__name__,
                                           value.__defaults__, value.__closure__)
    return new[fn.__name__]


def _need(module):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as exc:
        raise NotInstalled(str(exc)) from exc


def autograd_grad(ctx):
    autograd, anp = _need("autograd"), _need("autograd.numpy")
    fn, wrt = rebind(ctx.workload.function, anp), ctx.workload.wrt
    if isinstance(wrt, int):
        gradient = autograd.grad(fn, wrt)
    else:
        def packed(values, *args):              # one backward pass for several arguments
            args = list(args)
            for position, value in zip(wrt, values):
                args[position] = value
            return fn(*args)
        by_pack = autograd.grad(packed, 0)
        gradient = lambda *args: by_pack(chosen(args, wrt), *args)    # noqa: E731
    assert_agrees("autograd", gradient(*ctx.args), ctx.hand)
    return Prepared(lambda: gradient(*ctx.args))


def _jax():
    jax = _need("jax")
    jax.config.update("jax_enable_x64", True)
    return jax, _need("jax.numpy")


def jax_grad(ctx, jit=False):
    jax, jnp = _jax()
    args = tree_map(lambda x: jnp.asarray(x) if isinstance(x, np.ndarray) else x, ctx.args)
    gradient = jax.grad(rebind(ctx.workload.function, jnp), argnums=ctx.workload.wrt)
    if jit:
        gradient = jax.jit(gradient)
    try:
        first = jax.block_until_ready(gradient(*args))      # the compilation, when jit
    except jax.errors.ConcretizationTypeError as exc:
        raise CannotTrace(str(exc).splitlines()[0]) from exc
    assert_agrees("jax.jit" if jit else "jax", tree_map(np.asarray, first), ctx.hand)
    return Prepared(lambda: jax.block_until_ready(gradient(*args)), numpy_memory=False)


def torch_grad(ctx):
    torch, shim = _need("torch"), _need("torch_numpy")
    args = tree_map(lambda x: torch.from_numpy(x.copy()) if isinstance(x, np.ndarray) else x,
                    ctx.args)
    inputs = leaves(chosen(args, ctx.workload.wrt))
    for tensor in inputs:
        tensor.requires_grad_(True)
    fn = rebind(ctx.workload.function, shim)
    call = lambda: torch.autograd.grad(fn(*args), inputs)    # noqa: E731
    gradient = replace_leaves(ctx.hand,
                              [g.numpy() for g in call()])
    assert_agrees("torch", gradient, ctx.hand)
    return Prepared(call, numpy_memory=False)


def tangent_grad(ctx):
    tangent, wrt = _need("tangent"), ctx.workload.wrt
    with warnings.catch_warnings():          # its generated code has `if 1 is None:`
        warnings.simplefilter("ignore", SyntaxWarning)
        gradient = tangent.grad(ctx.workload.function,
                                wrt=(wrt,) if isinstance(wrt, int) else wrt, verbose=0)
    assert_agrees("tangent", gradient(*ctx.args), ctx.hand)
    return Prepared(lambda: gradient(*ctx.args))


PEERS = {"autograd": autograd_grad, "jax": jax_grad,
         "jax.jit": lambda ctx: jax_grad(ctx, jit=True),
         "torch": torch_grad, "tangent": tangent_grad}
