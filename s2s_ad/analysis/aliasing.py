"""Aliasing: which local names may share memory, and which in-place updates others could see.

`y = x` does not copy an array, nor do `x[0]`, `x.T`, `x.reshape(...)`, `for row in A` or
`a, b = pair`. After such a binding `y += 1` changes `x` as well, which the transformer (it
treats `y += 1` as `y = y + 1`) would not see. This analysis follows may-alias sets through the
function, flow-sensitively (a rebinding such as `y = y * 2` makes `y` fresh again), so such
updates can be refused only where another name that may share the memory is read afterwards.
"""
import gast

from ..traversal import preorder, walk

# attributes that are a view of their array (writing into them writes into the array); both
# modes refuse an in-place write through one, and a read of one after the array was written
VIEW_ATTRIBUTES = frozenset({"T", "mT", "real", "imag", "flat"})
# methods and functions that return a view of (or the very object of) their first argument;
# reverse and forward mode read these too
VIEW_METHODS = frozenset({"reshape", "ravel", "transpose", "squeeze", "swapaxes", "view",
                          "diagonal",
                          "conj", "conjugate"})     # the array itself where it is real
VIEW_FUNCTIONS = frozenset({
    "reshape", "ravel", "transpose", "squeeze", "swapaxes", "expand_dims", "broadcast_to",
    "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "moveaxis", "atleast_1d",
    "atleast_2d", "atleast_3d", "real", "imag", "diagonal", "diag", "flip", "fliplr", "flipud",
    "stop_gradient", "rot90", "rollaxis", "matrix_transpose", "permute_dims", "unstack", "split",
    "array_split", "hsplit", "vsplit", "dsplit", "as_strided", "sliding_window_view",
    "require", "asarray_chkfinite", "trim_zeros", "frombuffer",   # the array, or its memory
    "float64", "float32", "float16", "longdouble",      # the same array when the dtype matches
})
_VIEW_METHODS = VIEW_METHODS | VIEW_ATTRIBUTES
# attributes of an array that are new values, never memory it holds
NEW_ATTRIBUTES = frozenset({"shape", "size", "ndim", "dtype", "itemsize", "nbytes", "strides",
                             "flags"})
# functions returning a list or tuple of views: its `.copy()` is a new list of the same views
VIEW_LISTS = frozenset({"unstack", "split", "array_split", "hsplit", "vsplit", "dsplit",
                        "broadcast_arrays"})
# conversions that return their argument itself when told not to copy (`copy=False`/`None`)
_CONVERSIONS = frozenset({"array", "astype", "nan_to_num"})


def returns_its_argument_uncopied(call):
    """`np.array(y, copy=False)`, `np.array(y, copy=None)`, `y.astype(t, copy=False)`: the
    same array when no conversion is needed, so a view of `y` as far as aliasing goes."""
    func = call.func
    name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
    return name in _CONVERSIONS and any(
        k.arg == "copy" and isinstance(k.value, gast.Constant) and k.value.value in (False, None)
        for k in call.keywords)
_ELEMENT_FUNCTIONS = {"enumerate", "zip", "reversed", "iter", "list", "tuple"}


def views_every_argument(call):
    """`np.broadcast_arrays(a, b)`, `np.meshgrid(a, b, copy=False)`: views of each argument;
    `np.einsum('ii->i', a)` of one operand, a view of it where nothing is summed."""
    name = _called_name(call)
    return name == "broadcast_arrays" or (name == "meshgrid" and any(
        k.arg == "copy" and isinstance(k.value, gast.Constant) and k.value.value is False
        for k in call.keywords)) or (name == "einsum" and len(call.args) == 2
                                     and _sums_nothing(call.args[0]))


def _sums_nothing(spec):
    """Does the einsum subscript `spec` (a constant) keep every index of its one operand
    (`'ii->i'`, `'ij->ji'`)? Then NumPy returns a view. Not a constant: it may."""
    if not (isinstance(spec, gast.Constant) and isinstance(spec.value, str)):
        return True
    inputs, _, output = spec.value.replace(" ", "").partition("->")
    if not _:                  # implicit: the indices that appear once, in order
        output = "".join(c for c in sorted(set(inputs)) if inputs.count(c) == 1)
    return set(inputs) - {"."} <= set(output)

# Methods that change their object in place: lists, dicts and sets, and NumPy arrays. Of
# those, the ones that put their arguments into a list (which then holds, and may alias, them)
# and the list methods forward mode repeats on a list's tangent.
IN_PLACE_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
    "update", "setdefault", "popitem", "add", "discard", "fill", "put", "resize", "itemset",
})
LIST_FILLING_METHODS = frozenset({"append", "extend", "insert"})
# methods that hand out an entry of their object itself (`d.setdefault(k, [])`)
_HANDING_OUT_ENTRIES = frozenset({"setdefault", "get", "__getitem__"})
LIST_METHODS_ON_TANGENTS = LIST_FILLING_METHODS | {"pop"}


def index_view(index):
    """Does `y[index]` share memory with `y`, as far as the index shows: 'copy' (a list of
    positions: advanced indexing copies), 'view' (a slice, None or `...` with no list: a view
    whatever `y`'s rank), or 'maybe' (integers and names only: a row of a 2-D array is a view,
    an entry of a 1-D array a copy, and a name may hold an array of positions). The one answer
    both modes and every refusal use; each decides how to treat 'maybe'."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    if any(isinstance(p, gast.List) for p in parts if not isinstance(p, gast.Slice)):
        return "copy"
    if any(isinstance(p, gast.Slice) or (isinstance(p, gast.Constant) and
                                         (p.value is None or p.value is Ellipsis))
           for p in parts):
        return "view"
    return "maybe"


def index_may_view(index):
    return index_view(index) != "copy"


def _entry(subscript):
    """`p['W']` as a name of its own: entries under different keys never share memory."""
    key = subscript.slice
    if isinstance(subscript.value, gast.Name) and isinstance(key, gast.Constant) \
            and isinstance(key.value, str):
        return f"{subscript.value.id}[{key.value!r}]"
    return None


def _names_loaded(node):
    """Names read by `node`; a read of `p['W']` counts as a read of that entry only."""
    found, entries = set(), set()
    for sub in walk(node):
        if isinstance(sub, gast.Subscript) and _entry(sub):
            entries.add(id(sub.value))
            found.add(_entry(sub))
    found |= {n.id for n in walk(node) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Load) and id(n) not in entries}
    return found


def is_read(name, reads):
    """Is `name` (a name, or an entry `p['W']`) among `reads`: directly, as a whole, or (for a
    whole name) through one of its entries?"""
    if name in reads or ("[" in name and name[:name.index("[")] in reads):
        return True
    return "[" not in name and any(r.startswith(name + "[") for r in reads)


def module_source(name):
    """The source standing for the module-level array `name` in may-alias sets."""
    return f"<module {name}>"


def is_module_source(source):
    return source.startswith("<module ")


def module_name(source):
    return source[len("<module "):-1]


def _called_name(call):
    func = call.func
    return func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)


class MayAlias:
    """May-alias sets at every in-place update of a name (`y += ...`, `y[i] = ...`)."""

    def __init__(self, params=(), call_results=None, module_arrays=None, call_writes=None):
        self.updates = []           # (statement, updated name, names it may share memory with)
        self.changed_by_methods = []     # the same for `xs.append(v)` and the other IN_PLACE_METHODS
        self.returns = set()        # what a returned value may share memory with
        self.returned_parts = []    # per `return`: what each element of a tuple returned may
        #                             share memory with (None for a value of another form)
        self.state = {p: frozenset() for p in params}
        self.lists = set()          # names that may hold a list, tuple or dict
        # call -> the argument expressions its result may share memory with, or None where the
        # call is a NumPy function or method (views as listed above, otherwise a new array)
        self.call_results = call_results or (lambda call: None)
        # free name -> is it an array (or list, dict) of the module? Such a name, read while
        # not bound here, is a source of its own, `module_source(name)`: `b = BUF` (or
        # `b = BUF.reshape(3)`, `b = getbuf()`) makes `b[:] = x` a write into the module's array
        self.module_arrays = module_arrays or (lambda name: False)
        # call -> the argument expressions it writes into (`np.copyto(y, x)`: `y`), or None
        self.call_writes = call_writes

    # what a value may share memory with ----------------------------------------------------
    def sources(self, value):
        if isinstance(value, gast.Name):
            if is_module_source(value.id):           # a callee's result: that module array
                return {value.id}
            found = {value.id} | set(self.state.get(value.id, ()))
            if value.id not in self.state and self.module_arrays(value.id):
                found.add(module_source(value.id))
            return found
        if isinstance(value, gast.Subscript):
            entry = _entry(value)
            if entry:
                # the entry, and whatever its container was made of (`d = {'a': y}`)
                holder = self.sources(value.value) - {value.value.id}
                return {entry} | set(self.state.get(entry, ())) | holder
            return self.sources(value.value) if index_may_view(value.slice) else set()
        if isinstance(value, gast.Attribute):
            if value.attr in _VIEW_METHODS or (value.attr not in NEW_ATTRIBUTES
                                               and self._holds_fields(value.value)):
                return self.sources(value.value)
            return set()
        if isinstance(value, gast.IfExp):
            return self.sources(value.body) | self.sources(value.orelse)
        if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult)) and \
                any(isinstance(o, (gast.List, gast.Tuple)) for o in (value.left, value.right)):
            # `[y] * 2`, `[y] + xs`: a new list of the very objects
            return self.sources(value.left) | self.sources(value.right)
        if isinstance(value, gast.BoolOp):              # `d.get(k) or a` is one of them
            return set().union(*(self.sources(v) for v in value.values))
        if isinstance(value, (gast.Tuple, gast.List)):
            return set().union(*(self.sources(e) for e in value.elts)) if value.elts else set()
        if isinstance(value, gast.Dict):
            return set().union(*(self.sources(v) for v in value.values)) if value.values else set()
        if isinstance(value, gast.Starred):
            return self.sources(value.value)
        if isinstance(value, gast.Lambda):
            return self.captured(value)
        if isinstance(value, gast.Call):
            returned = self.call_results(value)
            if returned is not None:
                return set().union(*(self.sources(a) for a in returned))
            name = _called_name(value)
            if self._copies_a_list(value):
                # a shallow copy: a new list of the very objects, or views, the list holds
                return self.sources(value.func.value)
            if isinstance(value.func, gast.Attribute) and name in _VIEW_METHODS \
                    and not self._is_module(value.func.value):
                return self.sources(value.func.value)
            if (name in VIEW_FUNCTIONS | _ELEMENT_FUNCTIONS or views_every_argument(value)) \
                    and value.args:
                return set().union(*(self.sources(a) for a in value.args))
            if returns_its_argument_uncopied(value):
                owner = value.func.value if name == "astype" else value.args[0]
                return self.sources(owner)
        return set()

    def _holds_fields(self, owner):
        """Is `owner` (of `owner.a`) a local object, whose fields may be what it was made of
        (`r = Record(y)`: `r.a` is `y`)? Not a module or other global (`np.pi`)."""
        while isinstance(owner, gast.Attribute):
            owner = owner.value
        return isinstance(owner, gast.Name) and owner.id in self.state

    def _copies_a_list(self, call):
        """`xs.copy()` of what may be a list or dict: a new one of the very objects `xs` holds."""
        if not (isinstance(call.func, gast.Attribute) and call.func.attr == "copy"
                and not call.args):
            return False
        owner = call.func.value
        return owner.id in self.lists if isinstance(owner, gast.Name) else \
            self._makes_a_list(owner)

    def _makes_a_list(self, value):
        """A list, tuple or dict (of the objects it is made of)?"""
        if isinstance(value, (gast.List, gast.Tuple, gast.ListComp, gast.Dict, gast.DictComp)):
            return True
        if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult)):
            return any(isinstance(o, (gast.List, gast.Tuple)) for o in (value.left, value.right))
        return isinstance(value, gast.Call) and (
            _called_name(value) in VIEW_LISTS | {"list", "tuple", "dict"}
            or self._copies_a_list(value))

    def _is_module(self, owner):
        """Is `owner` (of `owner.reshape(a)`) a free name holding no array, such as `np`? Then
        the call is the function `np.reshape`, a view of its argument `a`, not of `np`."""
        return isinstance(owner, gast.Name) and owner.id not in self.state \
            and not self.module_arrays(owner.id)

    # transfer functions ---------------------------------------------------------------------
    # The state maps a name to the names it may share memory with; the relation is symmetric,
    # so unbinding `name` touches only the names it was linked to. Transfer functions change
    # the state in place: whoever keeps an earlier state (branches, loops) keeps a copy.
    def bind(self, name, sources):
        """`name` now refers to something sharing memory with `sources` (and their aliases)."""
        state = self.state
        for other in state.get(name, ()):
            if other in state:
                state[other] = state[other] - {name}
        sources = set(sources) - {name}
        for source in sources:
            state[source] = state.get(source, frozenset()) | {name}
        state[name] = frozenset(sources)

    def join_into(self, name, sources):
        """`name` holds, in addition, something sharing memory with `sources` (`xs.append(v)`)."""
        state = self.state
        sources = set(sources) - {name}
        for source in sources:
            state[source] = state.get(source, frozenset()) | {name}
        state[name] = state.get(name, frozenset()) | sources

    def bind_target(self, target, sources):
        if isinstance(target, gast.Name):
            self.bind(target.id, sources)
        elif isinstance(target, (gast.Tuple, gast.List)):
            # the parts of one value may share memory with each other (`return (y[0], y)`)
            sources = set(sources)
            for element in target.elts:
                self.bind_target(element, sources)
                sources |= {n.id for n in walk(element) if isinstance(n, gast.Name)}
        elif isinstance(target, gast.Starred):
            self.bind_target(target.value, sources)
        elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            if not _entry(target):
                # `a[:] = BUF` copies into an array: only a container's entry keeps the
                # module's array itself (`d["k"] = BUF`)
                sources = {s for s in sources if not is_module_source(s)}
            self.join_into(target.value.id, sources)

    def bind_loop_target(self, target, iterable):
        """`for i, v in enumerate(xs)`: `i` is a number, `v` an element of `xs`; `for a, b in
        zip(xs, ys)`: `a` an element of `xs`, `b` one of `ys`; otherwise every name of the
        target may hold an element of the sequence."""
        name = _called_name(iterable) if isinstance(iterable, gast.Call) else None
        parts = target.elts if isinstance(target, (gast.Tuple, gast.List)) else None
        if name in ("enumerate", "zip") and isinstance(iterable.func, gast.Name) and parts \
                and not iterable.keywords and not any(isinstance(p, gast.Starred)
                                                      for p in parts + iterable.args):
            sequences = [None] + iterable.args[:1] if name == "enumerate" else iterable.args
            if len(sequences) == len(parts):
                for part, sequence in zip(parts, sequences):
                    self.bind_target(part, set() if sequence is None else self.sources(sequence))
                return
        self.bind_target(target, self.sources(iterable))

    def aliases(self, name):
        return set(self.state.get(name, ()))

    def run(self, statements):
        for statement in statements:
            self.statement(statement)
        return self

    def captured(self, function):
        """A nested function holds the enclosing function's values it reads (its closure):
        `make(c)` returning `def apply(v): return v * c` returns something that holds `c`."""
        body = function.body if isinstance(function.body, list) else [function.body]
        read = {n.id for part in body for n in walk(part)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in self.state}
        return set().union(*(self.sources(gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                    type_comment=None)) for name in read))

    def statement(self, node):
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return)) \
                and node.value is not None:
            self.nested_method_calls(node, [node.value])
        if self.call_writes is not None and isinstance(node, (
                gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return, gast.Expr)) and \
                node.value is not None:
            # `np.copyto(y, x)`, `np.add(a, b, out=y)`: a change of `y`, as by a method
            for name in _names_written_by_calls(node.value, self.call_writes, self.sources):
                self.changed_by_methods.append((node, name, self.aliases(name)))
        if isinstance(node, gast.FunctionDef):
            self.bind_target(gast.Name(id=node.name, ctx=gast.Store(), annotation=None,
                                       type_comment=None), self.captured(node))
        elif isinstance(node, gast.Assign):
            if isinstance(node.value, (gast.Tuple, gast.List)) and all(
                    isinstance(t, (gast.Tuple, gast.List)) and len(t.elts) == len(node.value.elts)
                    for t in node.targets):
                for target in node.targets:
                    for element, value in zip(target.elts, node.value.elts):
                        self.bind_target(element, self.sources(value))
            else:
                sources = self.sources(node.value)
                if self._makes_a_list(node.value):
                    self.lists.update(t.id for t in node.targets if isinstance(t, gast.Name))
                for target in node.targets:
                    self.updated_entry(node, target)
                    self.bind_target(target, sources)
        elif isinstance(node, gast.AnnAssign) and node.value is not None:
            self.bind_target(node.target, self.sources(node.value))
        elif isinstance(node, gast.AugAssign):
            if isinstance(node.target, gast.Name):
                self.updates.append((node, node.target.id, self.aliases(node.target.id)))
            self.updated_entry(node, node.target)
        elif isinstance(node, gast.Delete):
            for target in node.targets:
                self.updated_entry(node, target)
        elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call):
            self.method_call(node, node.value)
            self.nested_method_calls(node, node.value.args + [k.value for k in node.value.keywords])
        elif isinstance(node, gast.Expr) and isinstance(node.value, (gast.Yield, gast.YieldFrom)):
            # a generator's items are its result (`r0, r1 = rows(a)` may be views of `a`)
            if node.value.value is not None:
                self.returns |= self.sources(node.value.value)
            self.returned_parts.append(None)
        elif isinstance(node, gast.Return) and node.value is not None:
            self.returns |= self.sources(node.value)
            self.returned_parts.append([self.sources(e) for e in node.value.elts] if isinstance(
                node.value, (gast.Tuple, gast.List)) else None)
        elif isinstance(node, gast.If):
            before = dict(self.state)
            self.run(node.body)
            after_body, self.state = self.state, before
            self.run(node.orelse)
            self.state = _join(after_body, self.state)
        elif isinstance(node, (gast.For, gast.While)):
            self.loop(node)
        elif isinstance(node, gast.With):
            self.run(node.body)

    def updated_entry(self, node, target):
        """`x[k] = v`, `x[k] += v` or `del x[k]` in `node`: a change of x's object."""
        if isinstance(target, gast.Subscript):
            self.updates.append((node, target.value.id if isinstance(target.value, gast.Name)
                                 else None, self.aliases_of_target(target)))

    def nested_method_calls(self, node, parts):
        """`v = xs.pop()`, `return out.pop()`, `f(xs.pop())`: a change made by a method
        inside an expression of the statement `node` (no list is filled by one: the value
        it binds is followed as any value is)."""
        for part in parts:
            for call in walk(part):
                if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) \
                        and call.func.attr in IN_PLACE_METHODS:
                    self.method_call(node, call, fills=False)

    def method_call(self, node, call, fills=True):
        """`xs.append(v)` and the other IN_PLACE_METHODS as a statement `node`."""
        if not (isinstance(call.func, gast.Attribute) and call.func.attr in IN_PLACE_METHODS):
            return
        if isinstance(call.func.value, gast.Name):
            owner = call.func.value.id
            self.changed_by_methods.append((node, owner, self.aliases(owner)))
            if fills and call.func.attr in LIST_FILLING_METHODS:
                self.join_into(owner, set().union(*(self.sources(a) for a in call.args)))
            return
        # `outer[0].append(v)`, `d.setdefault(k, []).append(v)` change an object `outer`
        # (`d`) holds: seen through it
        root = call.func.value
        while isinstance(root, gast.Subscript) or isinstance(root, gast.Call) and isinstance(
                root.func, gast.Attribute) and root.func.attr in _HANDING_OUT_ENTRIES:
            root = root.value if isinstance(root, gast.Subscript) else root.func.value
        if isinstance(root, gast.Name) and root is not call.func.value:
            self.changed_by_methods.append((node, root.id, self.aliases(root.id)))

    def aliases_of_target(self, target):
        base = target
        while isinstance(base, (gast.Subscript, gast.Attribute)):    # `r.a[0] = v`
            base = base.value
        # `v.reshape(2, 2)[0] = w`: a write into what the call's result may be a view of
        return self.aliases(base.id) if isinstance(base, gast.Name) else self.sources(base)

    def loop(self, node):
        """Iterate the body to a fixed point; after the loop, any state seen inside may hold."""
        seen = self.state
        updates = len(self.updates)
        while True:
            del self.updates[updates:]
            self.state = dict(seen)
            if isinstance(node, gast.For):
                self.bind_loop_target(node.target, node.iter)
            states = [dict(self.state)]
            for statement in node.body:
                self.statement(statement)
                states.append(dict(self.state))
            joined = seen
            for state in states:
                joined = _join(joined, state)
            if joined == seen:
                break
            seen = joined
        self.state = dict(seen)
        self.run(node.orelse)


class MayBeSame(MayAlias):
    """MayAlias narrowed to the names that may hold the very object another holds (`z = y`,
    `z = ident(y)`, `a, b = y, w`), not a view of it, an array copied into it (`m[:, 1] = y`),
    nor a list holding it: the names an update `z += v` may be seen through as a whole."""

    def sources(self, value):
        if isinstance(value, gast.Subscript) and not _entry(value) or \
                isinstance(value, (gast.Attribute, gast.Tuple, gast.List, gast.Dict)) or \
                isinstance(value, gast.Call) and self.call_results(value) is None:
            return set()
        return super().sources(value)

    def bind_target(self, target, sources):
        if not (isinstance(target, gast.Subscript) and not _entry(target)):
            super().bind_target(target, sources)


def _join(a, b):
    out = dict(a)
    for name, aliases in b.items():
        out[name] = out.get(name, frozenset()) | aliases
    return out


def live_after(statements, statement):
    """Names that may be read after `statement` before being rebound (loops count in full)."""
    path = _path_to(statements, statement)
    live, killed = set(), set()
    for block, index, owner in reversed(path):
        for later in block[index + 1:]:
            live |= _loaded_before_bound(later) - killed
            if isinstance(later, gast.Assign) and all(isinstance(t, gast.Name) for t in later.targets):
                killed |= {t.id for t in later.targets}
        if isinstance(owner, (gast.For, gast.While)):
            live |= _loaded_before_bound(owner)    # the next iteration
            killed = set()
    return live


def _loaded_before_bound(statement):
    """The names `statement` reads; a loop's own target is bound before its body reads it."""
    def block(statements):
        return set().union(set(), *(_loaded_before_bound(s) for s in statements))
    if isinstance(statement, gast.For):
        bound = {n.id for n in walk(statement.target) if isinstance(n, gast.Name)
                 and isinstance(n.ctx, gast.Store)}
        return _names_loaded(statement.iter) | (block(statement.body) - bound) | \
            block(statement.orelse)
    if isinstance(statement, (gast.If, gast.While)):
        return _names_loaded(statement.test) | block(statement.body) | block(statement.orelse)
    return _names_loaded(statement)


def _path_to(block, statement, owner=None):
    """[(block, index, statement owning the block)] from the function body down to `statement`."""
    for index, candidate in enumerate(block):
        if candidate is statement:
            return [(block, index, owner)]
        for field in ("body", "orelse"):
            inner = _path_to(getattr(candidate, field, []) or [], statement, candidate)
            if inner:
                return [(block, index, owner)] + inner
    return []


def _names_written_by_calls(value, call_writes, sources):
    """The names whose arrays the calls in `value` write into (`np.copyto(y, x)`: `y`), or
    may (`out=y.reshape(4)`: what `sources` says the view may share memory with)."""
    for call in walk(value):
        for written in call_writes(call) if isinstance(call, gast.Call) else ():
            while isinstance(written, (gast.Subscript, gast.Attribute)):
                written = written.value                   # `out=y[0]` changes `y`
            if isinstance(written, gast.Name):
                yield written.id
            else:
                yield from (s for s in sources(written) if s.isidentifier())


def _with_outside_arguments(function_node, call_results, module_arrays=None, call_writes=None):
    """MayAlias run over a function whose parameters are the caller's objects; and the names."""
    args = function_node.args
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    analysis = MayAlias(call_results=call_results, module_arrays=module_arrays,
                        call_writes=call_writes)
    for param in params:
        analysis.state[param] = frozenset({_outside(param)})
        analysis.state[_outside(param)] = frozenset({param})
    return analysis.run(function_node.body), params


def returned_parameters(function_node, call_results=None, module_arrays=None):
    """The parameters whose objects the function's result may be, hold or view; and, with
    `module_arrays`, the module arrays it may be (as `module_source(name)`: `return BUF`)."""
    analysis, params = _with_outside_arguments(function_node, call_results, module_arrays)
    found = {p for p in params if _outside(p) in analysis.returns or p in analysis.returns
             or any(r.startswith(p + "[") for r in analysis.returns)}
    return found | {r for r in analysis.returns if is_module_source(r)}


def returns_new_arrays(function_node, call_results, module_arrays):
    """Does every `return` hand back a tuple of values made inside the function, no two of
    which share memory (`return x * 2.0, x * 3.0`; not `return y, y`, nor a view of an
    argument, a module's array or one the function reads from outside)? Then an element the
    caller unpacks (`a, b = pair(x)`) is an array no other name holds."""
    analysis, params = _with_outside_arguments(function_node, call_results, module_arrays)
    # names the function binds itself (not `CACHE` of `CACHE.append(y)`, nor a parameter)
    own = {n.id for n in walk(function_node) if isinstance(n, gast.Name)
           and isinstance(n.ctx, gast.Store)} - set(params)
    parts = analysis.returned_parts
    if not parts or None in parts or len({len(p) for p in parts}) != 1 or \
            not all(isinstance(s, gast.Return) for s in function_node.body[-1:]):
        return False
    for elements in parts:
        seen = set()
        for sources in elements:
            if seen & sources or not sources <= own:
                return False
            seen |= sources
    return True


def mutated_parameters(function_node, call_results=None, call_writes=None):
    """{parameter: the first statement that updates its caller's object in place};
    `call_writes` as MayAlias takes it."""
    analysis, params = _with_outside_arguments(function_node, call_results,
                                               call_writes=call_writes)
    fresh = fresh_containers(function_node)
    found = {}
    for statement, owner, aliases in analysis.updates + analysis.changed_by_methods:
        if _replaces_an_entry_of(statement, fresh) or \
                owner in fresh and _changed_by_its_method(statement, owner):
            continue          # a list the function wrote out itself, not one it was given
        for param in params:
            if _outside(param) in aliases or any(a.startswith(param + "[") for a in aliases):
                found.setdefault(param, statement)
    return found


def _changed_by_its_method(statement, owner):
    """Does `statement` change `owner` itself by a method (`owner.pop()`, anywhere in it)?"""
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
               and n.func.attr in IN_PLACE_METHODS and isinstance(n.func.value, gast.Name)
               and n.func.value.id == owner for n in walk(statement))


def _outside(param):
    return f"<argument {param}>"


_LITERAL_CONTAINERS = (gast.List, gast.Tuple, gast.Dict, gast.ListComp, gast.DictComp)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def fresh_containers(function_node):
    """Names every binding of which is a list, tuple or dict written out (`xs = [a, b]`), or
    a new one of what another holds (`q = dict(p)`, `xs = list(ys)`): a container the function
    made itself, never an object its caller passed in (the objects it holds may be)."""
    # the function's own names: a nested def's or a lambda's are of their own scope
    nodes = list(walk(function_node.args)) + list(preorder(function_node.body, _SCOPES))
    literal = {id(t) for n in nodes if isinstance(n, gast.Assign)
               and (isinstance(n.value, _LITERAL_CONTAINERS) or _makes_a_container(n.value))
               for t in n.targets}
    # `xs += [v]` keeps a list a list (it extends the list, not the arrays it holds)
    literal |= {id(n.target) for n in nodes if isinstance(n, gast.AugAssign)
                and isinstance(n.op, gast.Add) and isinstance(n.value, (gast.List, gast.Tuple))}
    verdicts = {}
    for node in nodes:
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Param)):
            verdicts[node.id] = verdicts.get(node.id, True) and id(node) in literal
    return {name for name, fresh in verdicts.items() if fresh}


def _makes_a_container(value):
    """`dict(...)` or `list(...)`: a new dict or list, also of another's objects."""
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
        value.func.id in ("dict", "list")


def _replaces_an_entry_of(statement, containers):
    """`xs[i] = v` or `xs += [v]` on one of `containers`: the list or dict itself changes, not
    an array it holds (`xs[i] += v` would add into the held array in place)."""
    if isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name):
        return statement.target.id in containers
    return isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
        isinstance(statement.targets[0], gast.Subscript) and \
        isinstance(statement.targets[0].value, gast.Name) and \
        statement.targets[0].value.id in containers
