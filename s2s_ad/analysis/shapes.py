"""Shape facts: which names always hold a real number (shape ()), and which arrays always
have a shape known up to the arguments' size classes (analysis.kinds, analysis.dims).

Where an operation's operands and result have one shape, broadcasting cannot have stretched
anything, so the emitters leave out `unbroadcast` (and with it the values saved only for
their shape). The facts start from the arguments' kinds at the first call (analysis.kinds:
numbers, arrays and their size classes, containers' entries) and from what the code itself
makes: number literals, `len`, `range` counters, `x.shape`, arithmetic and matmul with
broadcasting, math functions and ufuncs, reductions along axes, `.T`, entries of arrays and
of container arguments (analysis.shape_calls has the calls).

They are flow-insensitive: a name has a kind only if every binding of it gives that kind.
"""
import types

import gast

from ..errors import TransformError
from ..frontend.parse import parse_for_reading
from ..traversal import nodes_in, walk, walk_statements
from . import dims, shape_calls
from .array_owners import checked_owners
from .activity import target_names
from .entry_values import calls_at_entry
from .index_ranges import distinct_positions, index_ranges
from .kinds import INT, RANGE, REAL, REALS, Array, Dim, Entries, is_number
from .primitives import classify
from .returned_kinds import returned_kind
from .callee_reads import only_read_arguments, reshapes_in_place
from .call_results import is_user_function, mutated_parameters_of
from .shape_calls import BOTTOM as _BOTTOM, array_of, broadcast, join as _join, plain as _plain, \
    token_of
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)
_ORDER = (gast.Lt, gast.LtE, gast.Gt, gast.GtE, gast.Eq, gast.NotEq)   # elementwise on arrays


class ShapeFacts:
    """`token(name)`: what the shape of `name` is known to be (NUMBER, a tuple of axes, or
    None); `is_number(name)`; `entry_is_number(x, index)`;
    `is_container(name)`; `distinct_positions(index)`."""

    def __init__(self, parsed, body, params, local_names, kinds=None, depth=0, made_from=None):
        self.parsed = parsed
        self.local_names = local_names
        # the functions whose source these facts read (analysis.returned_kinds)
        self.made_from = parsed.inlined if made_from is None else made_from
        self.depth, self._returned, self._read_by_calls = depth, {}, {}
        self._read_in_place, self._changes, self._at_entry = {}, None, None
        kinds = dict(zip(params, kinds or ()))
        # an array resized in place has another shape after: no array's shape is trusted
        resized = any(map(reshapes_in_place, nodes_in(body, [gast.Attribute, gast.Name])))
        self.arguments = kinds              # as passed, before `_kept`
        self.kinds = {p: self._kept(kinds.get(p), p, body, resized) for p in params}
        self._params, self._body, self._resized = params, body, resized
        self.ranges = index_ranges(parsed, body, params, local_names)
        bindings = list(_bindings(body))
        for name, _ in bindings:
            self.kinds.setdefault(name, _BOTTOM)
        changed = True
        while changed:                  # a monotone fixpoint: each name only climbs
            changed = False
            for name, value in bindings:
                joined = _join(self.kinds[name], value(self))
                if joined != self.kinds[name]:
                    self.kinds[name], changed = joined, True

    def returned(self, fn, kinds):
        """The kind of what a call of the user function `fn` with arguments of `kinds` returns."""
        key = (fn, kinds)
        if key not in self._returned:
            self._returned[key] = returned_kind(self._nested, fn, kinds, self.made_from,
                                                self.depth)
        return self._returned[key]

    def _only_read(self, fn, call, array):
        """The ids of the arguments of `call`, a call of the user function `fn`, it only reads
        (asked once per call: it reads the callee's source and its callees')."""
        key = (id(call), array)
        if key not in self._read_by_calls:
            self._read_by_calls[key] = [id(a) for a in only_read_arguments(fn, call, array)]
        return self._read_by_calls[key]

    def _nested(self, parsed, body, params, local_names, kinds, depth):
        return ShapeFacts(parsed, body, params, local_names, kinds, depth, self.made_from)

    def at_entry(self, call):
        """Does `call` run while the arguments hold what they held at entry, passing names
        of parameters and constants alone (analysis.entry_values)?"""
        if self._at_entry is None:
            self._at_entry = calls_at_entry(self._body, self.arguments)
        return id(call) in self._at_entry

    def passed_plain(self, name):
        """Was an array or a number passed as the parameter `name` (no dict, list or tuple)?"""
        kind = self.arguments.get(name)
        return type(kind) is Array or is_number(kind)

    def array_parameters_read(self):
        """The parameters whose kind would change these facts or the guards if an array were
        passed: read only in place (`_kept`), walked by a loop (an array is a sequence,
        passes/guard_key_loops.py), or owners of a method whose owner is checked
        (analysis.array_owners). Code made for arrays passed as the others is
        the code made for no kinds (calls.CalleeSplit)."""
        walked = {s.iter.id for s in walk_statements(self._body)
                  if isinstance(s, gast.For) and isinstance(s.iter, gast.Name)}
        walked |= checked_owners(self.parsed, self._body, self.local_names)
        return frozenset(p for p in self._params if p in walked or
                         self._kept(Array(0, ()), p, self._body, self._resized) is not None)

    def is_number(self, name):
        return is_number(self.kinds.get(name))

    def token(self, name):
        return token_of(self.kinds.get(name))

    def distinct_positions(self, index):
        """Does the index (a normal-form tuple) pick no position twice (analysis.index_ranges)?"""
        return distinct_positions(self.ranges, self.token, index)

    def range_part(self, index):
        """The position of a part of the index (a tuple of names and int literals) that
        always holds `np.arange(n)`, else None: where the shapes are not known here, whether
        its positions repeat is asked when it runs (runtime.scatter_by_range)."""
        if not isinstance(index, gast.Tuple) or not all(
                isinstance(p, gast.Name) or isinstance(p, gast.Constant) and type(p.value) is int
                for p in index.elts):
            return None
        return next((k for k, p in enumerate(index.elts)
                     if isinstance(p, gast.Name) and p.id in self.ranges), None)

    def is_container(self, name):
        """Does `name` always hold a dict with string keys, a list or a tuple (a container
        argument of known kind)?"""
        return isinstance(self.kinds.get(name), Entries)

    def entry_is_number(self, container, index):
        """Is `container[index]` (a name, an index of names and literals) a real number of an
        array (not of a list, whose adjoint is a list)?"""
        return isinstance(self.of(container), Array) and self._entry(self.of(container), index) == REAL

    def of(self, node):
        """The kind of a normal-form expression's value (None: not known)."""
        if isinstance(node, gast.Constant):
            value = node.value
            return INT if type(value) is int else REAL if type(value) in (float, bool) else None
        if isinstance(node, gast.Name):
            return self.kinds.get(node.id) if node.id in self.local_names else None
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
            return self._matmul(self.of(node.left), self.of(node.right))
        if isinstance(node, gast.BinOp) and isinstance(node.op, _ARITHMETIC):
            return self._arithmetic(node)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return broadcast([self.of(node.operand)])
        if isinstance(node, gast.Compare) and len(node.comparators) == 1 and \
                isinstance(node.ops[0], _ORDER):
            result = broadcast([self.of(node.left), self.of(node.comparators[0])])
            return REAL if result == INT else result       # a bool is a real number
        if isinstance(node, gast.Subscript):
            return self._entry(self.of(node.value), node.slice)
        if isinstance(node, gast.Attribute):
            return _attribute(self.of(node.value), node.attr)
        if isinstance(node, gast.Tuple):
            items = [self.of(e) for e in node.elts]
            return _BOTTOM if _BOTTOM in items else Entries(tuple, tuple(enumerate(items)))
        if isinstance(node, gast.IfExp):
            return _join(self.of(node.body), self.of(node.orelse))
        if isinstance(node, gast.Call):
            return shape_calls.call_kind(self, node)
        return None

    @staticmethod
    def _matmul(left, right):
        if _BOTTOM in (left, right):
            return _BOTTOM
        return array_of(dims.matmul(token_of(left), token_of(right)))

    def _arithmetic(self, node):
        left, right = self.of(node.left), self.of(node.right)
        result = broadcast([left, right])
        if isinstance(node.op, gast.Pow) and is_number(result) and not (
                isinstance(node.right, gast.Constant) and type(node.right.value) is int):
            return None         # `(-8.0) ** (1/3)` is complex in Python: only integer powers
        if isinstance(node.op, gast.Pow) and result == INT and node.right.value < 0 or \
                isinstance(node.op, gast.Div) and result == INT:
            return REAL
        return result

    def _picked(self, container, parts):
        """`x[r, y]`: an index of ints and 1-D arrays, one of them a range (`np.arange(n)`,
        integers): the parts broadcast together (a 1-D mask's picks must pair with the range's,
        else NumPy raises), followed by the axes the index leaves. None otherwise."""
        if not isinstance(container, Array) or container.dims is None or \
                len(parts) > container.ndim or \
                not any(isinstance(p, gast.Name) and p.id in self.ranges for p in parts):
            return None
        tokens = []
        for part in parts:
            kind = _plain(self.of(part))
            if kind == INT:
                tokens.append(dims.NUMBER)
            elif isinstance(kind, Array) and kind.ndim == 1 and kind.dims is not None:
                tokens.append(kind.dims)
            else:
                return None
        picked = dims.broadcast(tokens)
        return None if picked is None else array_of(picked + container.dims[len(parts):])

    def _entry(self, container, index):
        """The kind of `container[index]`: an entry of a container argument by its constant
        key; of an array, a number at integer indices, else the axes that whole slices
        keep and those the index leaves (NumPy's basic indexing)."""
        if container == _BOTTOM:
            return _BOTTOM
        if isinstance(container, Entries):
            entry = container.entry(index.value) if isinstance(index, gast.Constant) else \
                self._any_entry(container, index)
            return _held(entry)
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        whole = [_is_whole_slice(p) for p in parts]
        counts = [_plain(self.of(p)) for p, w in zip(parts, whole) if not w]
        if _BOTTOM in counts:
            return _BOTTOM
        if not all(c == INT for c in counts):
            return None if any(whole) else self._picked(container, parts)
        if container == REALS and parts and not any(whole) and len(parts) == 1:
            return REAL
        if not isinstance(container, Array) or len(parts) > container.ndim:
            return None
        if not any(whole) and len(parts) == container.ndim:
            return REAL
        if container.dims is None:
            return None
        kept = [n for n, w in zip(container.dims, whole) if w] + list(container.dims[len(parts):])
        return Array(len(kept), tuple(kept))

    def _any_entry(self, container, index):
        """`xs[i]` for an int `i` not known here (`for W, b in layers` walks `layers[_i]`):
        one of the entries of the list or tuple, so of the kind they all have (joined)."""
        if container.of is dict or _plain(self.of(index)) != INT:
            return None
        return _element(container)

    def _kept(self, kind, name, body, resized):
        """An argument's kind, if the function cannot change it: a number never changes, but a
        list or dict could be changed and an array reshaped in place, so a container keeps
        its kind only where the function reads it by indexing, `len` or iteration alone, and
        an array where it is also an operand of arithmetic or of NumPy functions (never copied
        to another name, handed to a function of yours or resized)."""
        if kind is None or is_number(kind):
            return kind
        if resized and isinstance(kind, (Array, Entries)):
            return None
        if isinstance(kind, Entries) and self._changes_an_argument():
            return None             # through an alias: another argument may hold this one
        array = isinstance(kind, Array)
        nodes, allowed, copies = self._in_place_reads(body, array)
        names = {name} | (_copies_of(name, nodes) if array else set())
        uses = [n for n in nodes if isinstance(n, gast.Name) and n.id in names and
                isinstance(n.ctx, gast.Load)]
        return kind if all(id(u) in allowed or id(u) in copies and array
                           for u in uses) else None

    def _changes_an_argument(self):
        """Does the function, or a function of yours it calls, change in place an object an
        argument holds (`inner = holder["cfg"]; inner["i"] = v`)? A container argument may be
        that object, or another argument may hold it, so none keeps its entries' kinds."""
        if self._changes is None:
            fn = self.parsed.fn
            self._changes = not is_user_function(fn) or \
                bool(mutated_parameters_of(fn, fn.__code__))
        return self._changes

    def _in_place_reads(self, body, array):
        """The nodes of `body`, the ids of those read in place (`_reads_in_place`) and of
        those copied to another name: read once per body for all the parameters."""
        key = (id(body), array)
        found = self._read_in_place.get(key)
        if found is None:
            nodes = [n for statement in body for n in walk(statement)]
            allowed = set()
            for node in nodes:
                allowed.update(self._reads_in_place(node, array))
            copies = {id(n.value) for n in nodes if _is_copy(n)}
            found = self._read_in_place[key] = (nodes, allowed, copies, body)
        return found[:3]

    def _reads_in_place(self, node, array):
        """The ids of the operands `node` reads without keeping or changing them."""
        if isinstance(node, gast.Subscript) and (array or isinstance(node.ctx, gast.Load)):
            # an index is read, never kept: `x[y]` copies or views x, not y
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            return [id(node.value)] + [id(p) for p in parts]
        if isinstance(node, gast.For):
            return [id(node.iter)]
        if isinstance(node, gast.Return) and node.value is not None:
            return [id(node.value)]     # (what the caller does with it is the caller's facts)
        if isinstance(node, gast.Call):
            key = classify(node, self.parsed, self.local_names).key
            if is_user_function(key):
                return self._only_read(key, node, array) if isinstance(node.func, gast.Name) \
                    else []
            reads = key is len or array and shape_calls.is_numpy(key) or \
                shape_calls.is_runtime_reader(key)
            return [id(a) for a in node.args + [k.value for k in node.keywords]] if reads else []
        if not array:
            return []
        if isinstance(node, gast.BinOp):
            return [id(node.left), id(node.right)]
        if isinstance(node, gast.UnaryOp):
            return [id(node.operand)]
        if isinstance(node, gast.Compare):
            return [id(node.left)] + [id(c) for c in node.comparators]
        if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load) and \
                node.attr != "resize":
            return [id(node.value)]
        return []


def _is_copy(node):
    """`a = b`: a second name for the value of `b`."""
    return isinstance(node, gast.Assign) and len(node.targets) == 1 and \
        isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Name)


def _copies_of(name, nodes):
    """The names that may hold the value of `name` by plain copies (`h = X`, then `g = h`):
    an array argument keeps its shape while it is read in place under each of them."""
    names, grown = {name}, True
    while grown:
        found = {n.targets[0].id for n in nodes if _is_copy(n) and n.value.id in names}
        grown = not found <= names
        names |= found
    return names


def _attribute(kind, attr):
    """`x.T` reverses an array's axes; `x.shape` is a tuple of its axes' sizes."""
    if kind == _BOTTOM:
        return _BOTTOM
    if not isinstance(kind, Array) or kind.dims is None:
        return None
    if attr == "T":
        return Array(kind.ndim, kind.dims[::-1])
    if attr == "shape":
        return Entries(tuple, tuple(enumerate(Dim(n) for n in kind.dims)))
    return None


def _is_whole_slice(node):
    return isinstance(node, gast.Slice) and node.lower is None and node.upper is None \
        and node.step is None


def _bindings(body):
    """(name, kind of what this binding gives it, from the facts so far) for each binding."""
    for statement in walk_statements(body):
        if isinstance(statement, gast.Assign) and \
                all(isinstance(target, gast.Name) for target in statement.targets):
            for target in statement.targets:            # `a = b = value` binds both
                yield target.id, lambda facts, value=statement.value: facts.of(value)
            continue
        if isinstance(statement, gast.For) and isinstance(statement.target, gast.Name):
            yield statement.target.id, lambda facts, over=statement.iter: _element(facts.of(over))
            continue
        unpacking = _unpacking(statement)
        if unpacking is not None:
            names, packed = unpacking
            for k, name in enumerate(names):
                yield name, lambda facts, k=k, n=len(names), packed=packed: \
                    _unpacked(packed(facts), k, n)
            continue
        for name in _names_bound(statement):
            yield name, lambda facts: None


def _unpacking(statement):
    """`W, b = layer` and `for W, b in layers`: (the names bound, the kind of what is unpacked
    from the facts), or None."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
        target, packed = statement.targets[0], lambda facts, v=statement.value: facts.of(v)
    elif isinstance(statement, gast.For):
        target = statement.target
        packed = lambda facts, over=statement.iter: _element(facts.of(over))   # noqa: E731
    else:
        return None
    if not isinstance(target, gast.Tuple) or not all(isinstance(e, gast.Name) for e in target.elts):
        return None
    return [e.id for e in target.elts], packed


def _unpacked(kind, k, n):
    """The kind of the `k`-th of `n` names a value of `kind` is unpacked into."""
    if kind == _BOTTOM:
        return _BOTTOM
    if not isinstance(kind, Entries) or kind.of is dict or len(kind.items) != n:
        return None
    return _held(kind.items[k][1])


def _held(entry):
    """The kind of a container's entry read into a name: a list or dict inside may be changed
    through that name (only the argument itself is checked for changes, `_kept`)."""
    mutable = entry == REALS or isinstance(entry, Entries) and entry.of is not tuple
    return None if mutable else entry


def _element(sequence):
    if sequence == _BOTTOM:
        return _BOTTOM
    if sequence == RANGE:
        return INT
    if sequence == REALS or isinstance(sequence, Array) and sequence.ndim == 1:
        return REAL
    if isinstance(sequence, Array) and sequence.ndim > 1 and sequence.dims is not None:
        return Array(sequence.ndim - 1, sequence.dims[1:])
    if isinstance(sequence, Entries) and sequence.of is not dict and sequence.items:
        element = _BOTTOM
        for _, kind in sequence.items:
            element = _join(element, kind)
        return None if element == _BOTTOM else element
    return None


def _names_bound(statement):
    """Every name `statement` binds other than by a plain `name = value` or `for name in`."""
    if isinstance(statement, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
        targets = statement.targets if isinstance(statement, gast.Assign) else [statement.target]
        return [n for t in targets for n in target_names(t)]
    if isinstance(statement, gast.For):
        return target_names(statement.target)
    if isinstance(statement, (gast.With, gast.Try, gast.FunctionDef, gast.ClassDef,
                              gast.Import, gast.ImportFrom)):
        return [n.id for n in walk(statement) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Store)]
    return []


_INDEXED = {}                   # code object -> indexed_parameters of its plain function


def indexed_parameters_of(fn, visiting=None):
    """`indexed_parameters` of `fn`'s source, and the parameters it passes on to a function
    of the user's that describes them (`loss(params, X)` calling `model(params, X)`, which
    walks `params`: the facts of `model` then know what `loss` receives). Read once per code
    object for a function no wrapper or *args twin stands for (the closures a loop makes at
    each step, and generated code made again from a template, share one); SourceUnavailable
    as parse_function."""
    plain = type(fn) is types.FunctionType and not any(
        hasattr(fn, a) for a in ("__wrapped__", "__s2s_variadic__"))
    found = _INDEXED.get(fn.__code__) if plain else None
    if found is None:
        parsed = parse_for_reading(fn)
        visiting = (visiting or set()) | {getattr(fn, "__code__", None)}
        found = frozenset(indexed_parameters(parsed.node) | _passed_on(parsed, visiting))
        if plain and len(_INDEXED) < 4096:
            _INDEXED[fn.__code__] = found
    return found


def _passed_on(parsed, visiting):
    """The parameters of the parsed function passed by position to a function of the user's
    that describes the parameter they are passed as."""
    params = {a.id for a in parsed.node.args.args}
    passed = set()
    for call in walk(parsed.node):
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and
                any(isinstance(a, gast.Name) and a.id in params for a in call.args)):
            continue
        callee = parsed.namespace.get(call.func.id)
        if not is_user_function(callee) or callee.__code__ in visiting:
            continue
        try:
            described = indexed_parameters_of(callee, visiting)
        except TransformError:
            continue
        names = callee.__code__.co_varnames[:callee.__code__.co_argcount]
        passed.update(a.id for a, name in zip(call.args, names)
                      if isinstance(a, gast.Name) and a.id in params and name in described)
    return passed


def indexed_parameters(node):
    """The names of `node`'s parameters that it indexes with a constant or a name
    (`params["W1"]`, `layers[0]`, `ws[i]`) or walks with a loop (`for W, b in layers`): the
    containers whose entries the facts can use."""
    params = {a.id for a in node.args.args + node.args.posonlyargs + node.args.kwonlyargs}
    indexed = {n.value.id for n in walk(node) if isinstance(n, gast.Subscript)
               and isinstance(n.value, gast.Name)
               and isinstance(n.slice, (gast.Constant, gast.Name))}
    walked = {n.iter.id for n in walk(node) if isinstance(n, (gast.For, gast.comprehension))
              and isinstance(n.iter, gast.Name)}
    return (indexed | walked) & params
