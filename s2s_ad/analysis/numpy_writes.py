"""Which arguments a NumPy call writes into: its `out` arrays, by keyword or by position, and
the first argument of the functions that exist to change it (`np.copyto(dst, src)`).

A function of the user's that writes into its parameter this way changes its caller's array
as `v[...] = ...` would (analysis/call_results.py, `mutated_parameters_of`)."""
import inspect
import operator

import gast
import numpy

from .. import rules

# where a ufunc's methods take `out` (`np.add.reduce(a, axis, dtype, out)`); their C
# signatures cannot be read
UFUNC_METHOD_OUTS = {"reduce": 3, "accumulate": 3, "reduceat": 4}

# functions called for what they do to their first argument, by its keyword
_CHANGE_THEIR_FIRST = {numpy.copyto: "dst", numpy.putmask: "a", numpy.place: "arr",
                       numpy.put: "a", numpy.fill_diagonal: "a", numpy.put_along_axis: "arr",
                       numpy.random.shuffle: "x", numpy.ndarray.resize: "a",
                       # a container changed by a function: `d[k] = v`, `xs.pop()` spelled so
                       operator.setitem: "a", operator.delitem: "a", operator.iadd: "a",
                       operator.ior: "a", operator.imul: "a",
                       **{method: "self" for method in (
                           dict.__setitem__, dict.__delitem__, dict.update, dict.setdefault,
                           dict.pop, dict.popitem, dict.clear, dict.__ior__, list.__setitem__,
                           list.__delitem__, list.__iadd__, list.__imul__, list.append,
                           list.extend, list.insert, list.pop, list.remove, list.clear,
                           list.sort, list.reverse)}}


def out_position(function):
    """Where `function` takes `out` positionally, read off its signature; None where it takes
    none, or the signature is not known. Kept per function: reading a signature costs up to
    milliseconds (a C function's text signature is parsed as Python source)."""
    try:
        return _OUT_POSITIONS[function]
    except KeyError:
        found = _OUT_POSITIONS[function] = _read_out_position(function)
        return found
    except TypeError:                       # an unhashable callable
        return _read_out_position(function)


_OUT_POSITIONS = {}


def _read_out_position(function):
    text = getattr(function, "__text_signature__", None)
    if type(text) is str and "out" not in text:
        return None                         # a C function's signature, without parsing it
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    for position, parameter in enumerate(parameters):
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            return None
        if parameter.name == "out":
            return position
    return None


def written_arguments(call, function):
    """The argument expressions `call` writes into, `function` being what it calls (None
    where not known: then only an `out=` keyword says so)."""
    written = []
    for keyword in call.keywords:
        if keyword.arg == "out":
            written += keyword.value.elts if isinstance(keyword.value, gast.Tuple) else \
                [keyword.value]
    position, many = _positional_outs(function)
    if position is not None:
        written += call.args[position:position + many]
    first = _first_changed(call, function)
    if first is not None:
        written.append(call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == first), None))
    return [w for w in written if w is not None and
            not (isinstance(w, gast.Constant) and w.value is None)]


def _positional_outs(function):
    """(where `function` takes its out arrays by position, how many), or (None, 0)."""
    if type(function).__name__ == "ufunc" and isinstance(function.nin, int):
        return function.nin, function.nout
    if type(getattr(function, "__self__", None)).__name__ == "ufunc":
        return UFUNC_METHOD_OUTS.get(getattr(function, "__name__", None)), 1
    if (getattr(function, "__module__", None) or "").startswith("numpy"):
        return out_position(function), 1
    return None, 0


def _first_changed(call, function):
    """The keyword of the first argument, where `call` exists to change it (np.copyto, a
    ufunc's `at`, `shuffle` of a generator, or of an owner not known: `rng.shuffle(v)` where
    `rng` is a parameter); else None."""
    try:
        if function in _CHANGE_THEIR_FIRST:
            return _CHANGE_THEIR_FIRST[function]
    except TypeError:                      # an unhashable callable
        return None
    name = getattr(function, "__name__", None)
    if name == "at" and type(getattr(function, "__self__", None)).__name__ == "ufunc":
        return "a"
    if function is None or isinstance(function, rules.method) or isinstance(
            getattr(function, "__self__", None), (numpy.random.Generator, numpy.random.RandomState)):
        called = call.func.attr if isinstance(call.func, gast.Attribute) else name
        return "x" if called == "shuffle" else None
    return None
