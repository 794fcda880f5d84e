"""np.einsum's adjoints and tangents, in both of NumPy's call forms, and the einsum subscripts
of the contractions written through it (np.tensordot, np.inner, np.kron)."""
import numpy as np

from .arrays import real_like, shape_of
from .indexing import add_at
from .tangents import zero_tangent
from .linalg import contracted_axes


# NumPy maps the integers of einsum sublists to these letters, in this order
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist_term(sublist):
    """An einsum sublist ([0, 1], [Ellipsis, 0]) as subscript letters, as NumPy maps them."""
    return "".join("..." if s is Ellipsis else _LETTERS[s] for s in sublist)


def einsum_form(subscripts, operands, k=0):
    """(subscripts, arrays, k) of the call `np.einsum(subscripts, *operands)`, `k` turned from
    an index of `operands` into one of `arrays`. NumPy takes two forms: a subscripts string,
    ('ij,jk', a, b), or sublists, (a, [0, 1], b, [1, 2], [0, 2]) with the output optional; in
    the second `subscripts` is the first array, and k == -1 names it."""
    if isinstance(subscripts, str):
        return subscripts, operands, k
    call = (subscripts,) + tuple(operands)
    arrays, sublists = call[0:len(call) - len(call) % 2:2], call[1::2]
    terms = ",".join(_sublist_term(s) for s in sublists)
    if len(call) % 2:                    # an odd count ends with the output sublist
        terms += "->" + _sublist_term(call[-1])
    return terms, arrays, (k + 1) // 2


def _with_argument(subscripts, operands, k, u):
    """(subscripts, operands) with operand `k` replaced by `u`; k == -1 is `subscripts` itself
    (the first array of the sublist form)."""
    if k == -1:
        return u, operands
    return subscripts, [u if i == k else op for i, op in enumerate(operands)]


def _einsum_terms(subscripts, operands):
    """Explicit per-operand subscripts and output, with `...` spelled out as letters."""
    subscripts = subscripts.replace(" ", "")
    inputs, _, output = subscripts.partition("->")
    terms = inputs.split(",")
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in subscripts]
    widest = 0
    for term, operand in zip(terms, operands):
        if "..." in term:
            widest = max(widest, np.ndim(operand) - (len(term) - 3))
    ellipsis = "".join(spare[:widest])
    expanded = []
    for term, operand in zip(terms, operands):
        if "..." in term:
            width = np.ndim(operand) - (len(term) - 3)
            term = term.replace("...", ellipsis[widest - width:])
        expanded.append(term)
    if "->" in subscripts:
        output = output.replace("...", ellipsis)
    else:
        letters = "".join(expanded)
        output = ellipsis + "".join(sorted(c for c in set(letters)
                                           if letters.count(c) == 1 and c not in ellipsis))
    return expanded, output


def einsum_grad(g, subscripts, k, *operands):
    """Adjoint of `np.einsum(subscripts, *operands)` with respect to operand `k`, in either of
    NumPy's forms (see einsum_form)."""
    subscripts, operands, k = einsum_form(subscripts, operands, k)
    terms, output = _einsum_terms(subscripts, operands)
    x = operands[k]
    target = terms[k]
    others = [t for i, t in enumerate(terms) if i != k] + [output]
    other_operands = [op for i, op in enumerate(operands) if i != k] + [g]
    unique = "".join(dict.fromkeys(target))
    sizes = {c: np.shape(x)[i] for i, c in enumerate(target)}
    reachable = "".join(c for c in unique if any(c in t for t in others))
    grad = np.einsum(",".join(others) + "->" + reachable, *other_operands)
    # axes where `x` has size 1 but was broadcast against a longer one sum back to size 1
    stretched = tuple(i for i, c in enumerate(reachable)
                      if sizes[c] == 1 and np.shape(grad)[i] != 1)
    if stretched:
        grad = np.sum(grad, axis=stretched, keepdims=True)
    # letters only `x` carries were summed away: broadcast back along them
    grad = np.reshape(grad, tuple(sizes[c] if c in reachable else 1 for c in unique))
    grad = np.broadcast_to(grad, tuple(sizes[c] for c in unique))
    if unique == target:
        return real_like(grad, x)
    # repeated letters (a diagonal such as 'ii'): place the values on that diagonal
    out = np.zeros_like(x, dtype=np.result_type(grad, x))
    ranges = np.ogrid[tuple(slice(sizes[c]) for c in unique)]
    # add_at, not item assignment: the diagonal's positions are distinct, and add_at is the
    # one place that knows how each backend writes at an array index
    add_at(out, tuple(ranges[unique.index(c)] for c in target), grad)
    return real_like(out, x)


def einsum_swap(subscripts, k, u, *operands):
    """`np.einsum(subscripts, *operands)` with operand `k` replaced by `u` (k == -1: the first
    array of the sublist form)."""
    subscripts, operands = _with_argument(subscripts, operands, k, u)
    return np.einsum(subscripts, *operands)


def einsum_grad_swap(g, subscripts, j, k, u, *operands):
    """The adjoint with respect to operand `j` of `einsum_grad(g, subscripts, k, *operands)`,
    given that result's adjoint `u` (zero for `j == k`: the result is linear in the others)."""
    if j == k:
        return np.zeros_like(subscripts if j == -1 else operands[j])
    subscripts, operands = _with_argument(subscripts, operands, k, u)
    return einsum_grad(g, subscripts, j, *operands)


def einsum_tangent(subscripts, operands, tangents):
    """Tangent of `np.einsum(subscripts, *operands)`: one term per operand that has a tangent."""
    total = None
    for k, t in enumerate(tangents):
        if t is None:
            continue
        replaced = list(operands)
        replaced[k] = t
        term = np.einsum(subscripts, *replaced)
        total = term if total is None else total + term
    return total


def einsum_grad_tangent(g, subscripts, k, operands, tangents):
    """Tangent of `einsum_grad(g, subscripts, k, *operands)` through the operands other than k."""
    total = None
    for j, t in enumerate(tangents):
        if t is None or j == k:
            continue
        replaced = list(operands)
        replaced[j] = t
        term = einsum_grad(g, subscripts, k, *replaced)
        total = term if total is None else total + term
    if total is None:
        return zero_tangent(operands[k])
    return total


def tensordot_subscripts(a, b, axes=2):
    """The np.einsum subscripts of `np.tensordot(a, b, axes)`."""
    na, nb = np.ndim(a), np.ndim(b)
    axes_a, axes_b = contracted_axes(a, b, axes)
    term_a = list(_LETTERS[:na])
    term_b = list(_LETTERS[na:na + nb])
    for i, j in zip(axes_a, axes_b):
        term_b[j] = term_a[i]
    out = [c for i, c in enumerate(term_a) if i not in axes_a] + \
          [c for j, c in enumerate(term_b) if j not in axes_b]
    return f"{''.join(term_a)},{''.join(term_b)}->{''.join(out)}"


def inner_subscripts(a, b):
    """The np.einsum subscripts of `np.inner(a, b)`."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        term_a, term_b = _LETTERS[:na], _LETTERS[na:na + nb]
        return f"{term_a},{term_b}->{term_a}{term_b}"
    free_a, free_b = _LETTERS[:na - 1], _LETTERS[na - 1:na + nb - 2]
    last = _LETTERS[na + nb - 2]
    return f"{free_a}{last},{free_b}{last}->{free_a}{free_b}"


def kron_parts(a, b):
    """For `np.kron(a, b)`: (shape of `a` and `b` with equal dimensions, the einsum subscripts
    of their outer product with axes interleaved, that product's shape)."""
    sa, sb = tuple(shape_of(a)), tuple(shape_of(b))
    dims = max(len(sa), len(sb))
    sa, sb = (1,) * (dims - len(sa)) + sa, (1,) * (dims - len(sb)) + sb
    term_a, term_b = _LETTERS[:dims], _LETTERS[dims:2 * dims]
    out = "".join(p + q for p, q in zip(term_a, term_b))
    return sa, sb, f"{term_a},{term_b}->{out}", tuple(n for pair in zip(sa, sb) for n in pair)
