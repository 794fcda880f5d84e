"""Parameters come as arrays, dicts of arrays or lists of (W, b) tuples; every contender's
gradient is compared leaf by leaf, in one order (dict keys sorted)."""


def leaves(tree):
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


def tree_map(fn, tree):
    """`fn` on every leaf, in the order of `leaves`."""
    if isinstance(tree, dict):
        return {key: tree_map(fn, tree[key]) for key in sorted(tree)}
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_map(fn, item) for item in tree)
    return fn(tree)


def replace_leaves(tree, new_leaves):
    it = iter(new_leaves)
    return tree_map(lambda _: next(it), tree)


def chosen(args, wrt):
    """The arguments differentiated: one, or a tuple of them as the gradient comes back."""
    return args[wrt] if isinstance(wrt, int) else tuple(args[i] for i in wrt)


def with_chosen(args, wrt, values):
    args = list(args)
    for position, value in zip((wrt,) if isinstance(wrt, int) else wrt,
                               (values,) if isinstance(wrt, int) else values):
        args[position] = value
    return tuple(args)
