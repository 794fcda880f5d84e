"""NumberAdjoints: the adjoint of a sum over all of an array's entries is one number spread
over the array, `dc = unreduce(d_sum, c, None, False)`. Where that spread value is only copied,
scaled by numbers and added to others like it until it becomes a gradient, the code carries
the number and spreads it once, where the gradient is made: a loop that doubles it each trip
then doubles a number, not an array. Each entry of the spread is the number, so scaling before
or after spreading gives the same entries, bit for bit."""
import gast

from .. import build, runtime
from ..analysis.dims import NUMBER
from ..traversal import nodes_in, rewrite, walk, walk_statements

_SCALE = (gast.Mult, gast.Div)
_ANY = "any"                    # a carried name whose shape no binding has told yet


class NumberAdjoints:
    """`names`: the generated code's helper names; `token(name)`: a value's shape token."""

    def __init__(self, names, token):
        self.names = names
        self.token = token

    def run(self, function):
        self.unreduce = self._name_of(runtime.unreduce)
        self.gradient_like = self._name_of(runtime.gradient_like)
        self.store = self._name_of(runtime.scatter_distinct)
        if self.unreduce is None or self.gradient_like is None:
            return function
        bindings, bound_otherwise = {}, set()
        for statement in walk_statements(function.body):
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], gast.Name):
                bindings.setdefault(statement.targets[0].id, []).append(statement)
            elif not isinstance(statement, (gast.FunctionDef, gast.If, gast.While)):
                # a loop binds its target (its body's statements come by themselves); any
                # other statement, whatever it stores
                part = statement.target if isinstance(statement, gast.For) else statement
                bound_otherwise.update(n.id for n in walk(part) if isinstance(n, gast.Name)
                                       and not isinstance(n.ctx, gast.Load))
        shapes = self._carried(function, bindings, bound_otherwise)
        if shapes:
            self._rewrite(function, bindings, shapes)
        return function

    def _name_of(self, obj):
        return next((k for k, v in self.names.items() if v is obj), None)

    def _carried(self, function, bindings, bound_otherwise):
        """{name: the shape its number is spread to} for the names that can carry a number:
        the largest set whose bindings and reads all allow it (a fixpoint from above)."""
        carried = {name: _ANY for name in bindings if name not in bound_otherwise}
        reads = None
        while True:
            shapes = self._shapes(bindings, carried)
            if not shapes:
                return shapes            # no spread number at all: the tree needs no walk
            # the tree does not change in this loop: its reads are indexed once
            reads = reads or _Reads(function)
            allowed = self._allowed_reads(reads, shapes)
            kept = {name: shapes[name] for name in shapes
                    if all(id(read) in allowed for read in reads.loads.get(name, ()))}
            if kept.keys() == carried.keys():
                return kept
            carried = kept

    def _shapes(self, bindings, carried):
        """The names of `carried` whose every binding gives a spread number of one shape."""
        shapes = dict(carried)
        changed = True
        while changed:
            changed = False
            for name in list(shapes):
                found = {self._shape_of(s.value, shapes) for s in bindings[name]} - {_ANY}
                shape = found.pop() if len(found) == 1 else _ANY if not found else None
                if shape is None:
                    del shapes[name]
                    changed = True
                elif shape != shapes[name]:
                    shapes[name] = shape
                    changed = True
        return {name: shape for name, shape in shapes.items() if shape is not _ANY}

    def _shape_of(self, value, shapes):
        """The shape `value` spreads its number to, if it is a spread (`unreduce` of a whole
        reduction) or copies, negates, scales by a number or adds carried names."""
        if self._is_spread_call(value):
            x, axis, keepdims = value.args[1:]
            whole = isinstance(axis, gast.Constant) and axis.value is None and \
                isinstance(keepdims, gast.Constant) and keepdims.value is False
            token = self.token(x.id) if isinstance(x, gast.Name) else None
            return token if whole and isinstance(token, tuple) else None
        if isinstance(value, gast.Name):
            return shapes.get(value.id)
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
            return self._shape_of(value.operand, shapes)
        if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub)):
            both = {self._shape_of(value.left, shapes), self._shape_of(value.right, shapes)}
            both = both - {_ANY} or {_ANY}
            return both.pop() if len(both) == 1 else None
        if isinstance(value, gast.BinOp) and isinstance(value.op, _SCALE):
            if self._number(value.right):
                return self._shape_of(value.left, shapes)
            if isinstance(value.op, gast.Mult) and self._number(value.left):
                return self._shape_of(value.right, shapes)
        return None

    def _is_spread_call(self, node):
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id == self.unreduce and len(node.args) == 4 and not node.keywords

    def _number(self, node):
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float)
        return isinstance(node, gast.Name) and self.token(node.id) == NUMBER

    def _allowed_reads(self, reads, shapes):
        """Ids of the reads of carried names that carrying a number keeps right: inside the
        bindings of carried names, as the gradient `gradient_like(n, a)` makes for an `a` of
        the shape n is spread to, and as what a store into the entries an index picks writes."""
        allowed = set()
        for target, names in reads.assigned:
            if target in shapes:
                allowed.update(names)
        for node in reads.calls:
            if self._sink(node, shapes):
                allowed.add(id(node.args[0]))
            elif self._stored(node, shapes):
                allowed.add(id(node.args[2]))
        return allowed

    def _stored(self, node, shapes):
        """`scatter_distinct(x, index, n)`: a store of `n` into the picked entries of zeros,
        which spreads a number as the store broadcasts it: no spread needed."""
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id == self.store and len(node.args) == 3 and not node.keywords and \
            isinstance(node.args[2], gast.Name) and node.args[2].id in shapes

    def _sink(self, node, shapes):
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and
                node.func.id == self.gradient_like and len(node.args) == 2 and
                all(isinstance(a, gast.Name) for a in node.args)):
            return False
        name, like = node.args
        return name.id in shapes and self.token(like.id) == shapes[name.id]


    def _rewrite(self, function, bindings, shapes):
        for name in shapes:
            for statement in bindings[name]:
                # every spread in a carried binding spreads a number: it is the number (also
                # inside `dx + unreduce(d_sum, x, None, False)`), spread at the end
                statement.value = rewrite(statement.value, {
                    gast.Call: lambda node: node.args[0] if self._is_spread_call(node) else node})
        for node in walk(function):
            if self._sink(node, shapes):
                like = node.args[1].id
                node.args[0] = build.quote_expr(f"{self.unreduce}({node.args[0].id}, {like}, "
                                                f"None, False)")


class _Reads:
    """What NumberAdjoints reads of a function's tree, from one walk: `loads`, the Name nodes
    that read each name; `calls`, every call; `assigned`, (the first target's name, ids of the
    Name nodes in the value) of each assignment to a name."""

    def __init__(self, function):
        self.loads, self.calls = {}, []
        for node in nodes_in(function, (gast.Name, gast.Call)):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                self.loads.setdefault(node.id, []).append(node)
            elif isinstance(node, gast.Call):
                self.calls.append(node)
        self.assigned = [
            (statement.targets[0].id,
             [id(n) for n in walk(statement.value) if isinstance(n, gast.Name)])
            for statement in walk_statements(function.body)
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)]
