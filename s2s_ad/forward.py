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
"""
import copy
import inspect

import gast

from . import build, cache, dispatch, rules, runtime, runtime_forward
from .analysis import call_results
from .analysis.aliasing import (LIST_METHODS_ON_TANGENTS, VIEW_ATTRIBUTES, VIEW_FUNCTIONS,
                                VIEW_METHODS, index_may_view, index_view)
from .passes.refuse_complex import refuse_complex_constants
from .analysis.activity import Activity
from .analysis.primitives import classify, passes_no_derivative
from .generated_globals import GlobalNames
from .errors import NoDerivativeRule
from .frontend.parse import parse_function, signature_of
from .instantiate import BINDING_HINT, BindingError, bind, call_signature, instantiate
from .passes.refuse_misread_operations import refuse_misread_operations
from .passes.refuse_unsupported import (refuse_writes_into_arguments, variadic_wrapper_error,
                                       write_through_view)
from .analysis.activity import assigned_names
from .traversal import loads, walk, walk_statements

ZERO = "__s2s_zero_tangent__"


class _State:
    """At one program point: which variables hold a tangent, which may / must be bound, and
    whose tangent is an array of its own that nothing else refers to (safe to write into)."""

    def __init__(self, nonzero, maybe, definite, owned=(), aliases=None):
        self.nonzero = set(nonzero)
        self.maybe = set(maybe)
        self.definite = set(definite)
        self.owned = set(owned)
        self.aliases = {k: set(v) for k, v in (aliases or {}).items()}   # x -> who may view dx
        self.viewed = {}                                            # v -> whose dx dv may view
        for source, holders in self.aliases.items():
            for holder in holders:
                self.viewed.setdefault(holder, set()).add(source)

    def copy(self):
        return _State(self.nonzero, self.maybe, self.definite, self.owned, self.aliases)

    def forget(self, variable):
        """`variable`'s tangent is a new object: it views nothing, and nothing views it."""
        for holder in self.aliases.pop(variable, ()):
            self.viewed[holder].discard(variable)
        for source in self.viewed.pop(variable, ()):
            self.aliases[source].discard(variable)

    def alias(self, source, holder):
        if source != holder:
            self.aliases.setdefault(source, set()).add(holder)
            self.viewed.setdefault(holder, set()).add(source)

    def viewers(self, variable):
        """Variables whose tangents may hold (part of) `variable`'s tangent, transitively."""
        found, todo = set(), [variable]
        while todo:
            for holder in self.aliases.get(todo.pop(), ()):
                if holder not in found:
                    found.add(holder)
                    todo.append(holder)
        return found - {variable}


def _merge_aliases(states):
    merged = {}
    for state in states:
        for key, holders in state.aliases.items():
            merged.setdefault(key, set()).update(holders)
    return merged


class _Loop:
    """The loop being transformed: its head state and where `break` / `continue` go."""

    def __init__(self, head_live, exit_live):
        self.head_live = head_live
        self.exit_live = exit_live
        self.entry = None
        self.jumps = []                   # (state, is_break) at each break / continue


class _Liveness:
    """Names read later: after each statement, and at the head of each loop."""

    def __init__(self):
        self.after = {}
        self.head = {}

    def block(self, statements, live, loop=None):
        for statement in reversed(statements):
            live = self.statement(statement, live, loop)
        return live

    def statement(self, statement, live, loop):
        live = set(live)
        self.after[id(statement)] = live
        if isinstance(statement, gast.Assign):
            target = statement.targets[0]
            before = live - {target.id} if isinstance(target, gast.Name) else live
            return before | loads(statement)
        if isinstance(statement, gast.Return):
            return loads(statement)
        if isinstance(statement, gast.If):
            return (loads(statement.test) | self.block(statement.body, live, loop)
                    | self.block(statement.orelse, live, loop))
        if isinstance(statement, (gast.While, gast.For)):
            exit_live = self.block(statement.orelse, live, loop) if statement.orelse else live
            is_for = isinstance(statement, gast.For)
            targets = set(_target_names(statement.target)) if is_for else set()
            fixed = set() if is_for else loads(statement.test)
            head = exit_live | fixed
            while True:
                inner = self.block(statement.body, head, (live, head))
                new = exit_live | fixed | (inner - targets)
                if new <= head:
                    break
                head = head | new
            self.head[id(statement)] = head
            return head | loads(statement.iter) if is_for else head
        if isinstance(statement, gast.Break):
            return set(loop[0]) if loop else live
        if isinstance(statement, gast.Continue):
            return set(loop[1]) if loop else live
        return live | loads(statement)


_VIEW_KEYS = rules.CallableSet([rules.method(n) for n in VIEW_METHODS] +
                               [rules.attribute(n) for n in VIEW_ATTRIBUTES])


def _target_names(target):
    return [n.id for n in walk(target) if isinstance(n, gast.Name)]


def _mutation(statement):
    """(owner, method, call) for a statement `xs.method(...)` on a local name, else None."""
    value = statement.value if isinstance(statement, (gast.Expr, gast.Assign)) else None
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
            isinstance(value.func.value, gast.Name) and value.func.attr in LIST_METHODS_ON_TANGENTS:
        return value.func.value.id, value.func.attr, value
    return None


def _contains_zero(node):
    return _mentions(node, {ZERO})


def _mentions(node, names):
    return any(isinstance(n, gast.Name) and n.id in names for n in walk(node))


def _terms(expression, sign=1):
    """Split a tangent rule's right-hand side into signed terms."""
    if isinstance(expression, gast.BinOp) and isinstance(expression.op, (gast.Add, gast.Sub)):
        right = -sign if isinstance(expression.op, gast.Sub) else sign
        return _terms(expression.left, sign) + _terms(expression.right, right)
    if isinstance(expression, gast.UnaryOp) and isinstance(expression.op, gast.USub) and \
            isinstance(expression.operand, gast.BinOp) and \
            isinstance(expression.operand.op, (gast.Add, gast.Sub)):
        return _terms(expression.operand, -sign)
    return [(sign, expression)]


def _sum(terms):
    total = None
    for sign, term in terms:
        if total is None:
            total = term if sign > 0 else gast.UnaryOp(op=gast.USub(), operand=term)
        else:
            total = gast.BinOp(left=total, op=gast.Add() if sign > 0 else gast.Sub(), right=term)
    return total


def _zero_constant(node):
    """The zero tangent of a literal, as a literal (None for None, strings and booleans)."""
    value = node.value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return gast.Constant(value=0.0, kind=None)
    if isinstance(value, complex):
        return gast.Constant(value=0j, kind=None)
    return gast.Constant(value=None, kind=None)


def _defaulted(rule, args, keywords):
    """{parameter: default} for the rule's parameters this call site leaves at their default."""
    if not rule.defaults:
        return {}
    signature, _ = call_signature(rule)
    parameters = signature.parameters.values()
    try:
        passed = signature.bind(*range(len(args)), **dict.fromkeys(keywords, 0))
    except TypeError:
        return {}
    return {p.name: p.default for p in parameters if p.name not in passed.arguments
            and p.default is not p.empty and p.kind is not p.VAR_KEYWORD}


class _OmitDefaults(gast.NodeTransformer):
    """`np.sum(t, axis=None)` -> `np.sum(t)` where the call site left `axis` at its default."""

    def __init__(self, defaults):
        self.defaults = defaults

    def _marker(self, node):
        if isinstance(node, gast.Name) and node.id.startswith("__default_"):
            return node.id[len("__default_"):-2]
        return None

    def visit_Call(self, node):
        node.keywords = [k for k in node.keywords if self._marker(k.value) is None]
        return self.generic_visit(node)

    def visit_Name(self, node):
        name = self._marker(node)
        if name is None:
            return node
        from .instantiate import literal
        return literal(self.defaults[name])


class _Rename(gast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old:
            return build.name(self.new, store=isinstance(node.ctx, gast.Store))
        return node


def _none_constant():
    return gast.Constant(value=None, kind=None)


def _vjp_call_signature(fn, args, kwargs, seed, active, where=None):
    """The parameters of s2s_ad.dispatch.vjp_call, for binding a call site."""


class ForwardMode(GlobalNames):
    """Builds `jvp_<f>(*params, tangent) -> (value, tangent of the value)` from normal-form code."""

    def __init__(self, parsed, body, params, wrt, namer, globals_):
        self.parsed = parsed
        self.body = body
        self.params = params
        self.wrt = wrt
        self.namer = namer
        self.globals = globals_           # name -> object the generated code needs
        self.local_names = set(params) | set(assigned_names(body))
        self.tangents = {}                # variable -> its tangent's name
        self.owners = {}                  # tangent's name -> variable
        self.loops = []
        self.none_init = set()            # names bound to None up front, so zeros can be made
        # tuple and dict literals (`_t = (a, b)`) by name, while neither they nor their entries
        # are rebound: run-time dispatch reads which entries have a tangent from them
        self.literals = {}
        self.stacks = set()               # lists used only through append / pop (a tape)
        self.function_name = None
        self._views = None
        self._chain = set()               # the copies refuse_write_through_view is following
        self.tapes = set()                # reverse-mode tapes whose entries carry tangents
        self.tape_entries = {}

    # names ------------------------------------------------------------------------------
    def tangent_name(self, variable):
        if variable not in self.tangents:
            self.tangents[variable] = self.namer.adjoint(variable)
            self.owners[self.tangents[variable]] = variable
        return self.tangents[variable]

    def tangent(self, variable):
        return build.name(self.tangent_name(variable))

    def zero_of(self, atom):
        """The expression for the zero tangent of `atom`."""
        if isinstance(atom, gast.Constant):
            return _zero_constant(atom)
        return gast.Call(func=build.name(self.helper(runtime_forward.zero_tangent)),
                         args=[build.clone(atom)], keywords=[])

    def tangent_of_atom(self, atom, state):
        """The tangent of an operand: its tangent's Name, or None when it has none."""
        if isinstance(atom, gast.Name) and atom.id in state.nonzero:
            return self.tangent(atom.id)
        return None

    def tangent_or_zero(self, atom, state):
        return self.tangent_of_atom(atom, state) or self.zero_of(atom)

    # entry point --------------------------------------------------------------------------
    def build(self, function_name):
        self.function_name = function_name
        body = list(self.body)
        if not body or not isinstance(body[-1], gast.Return):
            raise self.parsed.error(self.parsed.node, f"{self.parsed.name} has no return value",
                                    hint="return the value to differentiate")
        result = body[-1].value
        body = body[:-1]
        outputs = sorted(loads(result) & self.local_names)
        self.stacks = self.find_stacks(body)
        self.activity = self.analyze(body, outputs)
        if self.hoist_iterables(body):
            self.local_names |= set(assigned_names(body))
            self.activity = self.analyze(body, outputs)
        self.tapes = {s for s in self.tapes if self.tape_entries[s] & self.activity.active}
        refuse_writes_into_arguments(
            self.parsed, body, self.local_names, self.activity.varied,
            handled=lambda s: _mutation(s) is not None or self.accumulation(s) is not None)
        refuse_complex_constants(self.parsed, body, self.activity.active)
        refuse_misread_operations(self.parsed, body, self.local_names, self.activity.varied)
        self.liveness = _Liveness()
        self.liveness.block(body, loads(result))

        state = _State(set(self.wrt), self.params, self.params)
        copies = self.copy_written_arguments(body)
        state.owned |= {p for p in self.wrt if any(
            isinstance(c.targets[0], gast.Name) and c.targets[0].id == self.tangents.get(p)
            for c in copies)}
        code, state = self.block(body, state)
        code = copies + code
        if state is None:
            raise self.parsed.error(self.parsed.node, "internal: the end of the function is unreachable")

        tangent = self.namer.fresh("tangent")
        names = [self.tangent_name(p) for p in self.wrt]
        targets = build.name(names[0], store=True) if len(names) == 1 else gast.Tuple(
            elts=[build.name(n, store=True) for n in names], ctx=gast.Store())
        start = [build.assign(targets, build.name(tangent))]
        for variable in sorted(self.none_init):
            start.append(build.assign(variable, gast.Constant(value=None, kind=None)))

        if isinstance(result, gast.Tuple):
            result_tangent = gast.Tuple(elts=[self.tangent_or_zero(e, state) for e in result.elts],
                                        ctx=gast.Load())
        else:
            result_tangent = self.tangent_or_zero(result, state)
        ret = gast.Return(value=gast.Tuple(elts=[build.clone(result), result_tangent],
                                           ctx=gast.Load()))

        args = gast.arguments(
            args=[build.name(p) for p in self.params] + [build.name(tangent)],
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
        for a in args.args:
            a.ctx = gast.Param()
        along = self.wrt[0] if len(self.wrt) == 1 else "(" + ", ".join(self.wrt) + ")"
        docstring = gast.Expr(value=gast.Constant(
            value=f"Value of {self.parsed.name} and its derivative along `{tangent}`, a tangent "
                  f"of {along}.", kind=None))
        return gast.FunctionDef(
            name=function_name, args=args, body=[docstring] + start + code + [ret],
            decorator_list=[], returns=None, type_comment=None, type_params=[])

    def refuse_write_through_view(self, body, variable, write, written=None, shared=None):
        """`x[i] = v` where x may be a view of another array: the other array would change too.

        Copies read once are followed (`x = _t`: x is whatever _t was); `written` is the name
        the user writes into and `shared` the first other name of the user's that the copies
        lead to (after `buf, v = v, buf`, v is what buf was): the message names those two,
        never a link of the chain such as a temporary or `written` itself."""
        written = written or variable
        for statement in walk_statements(body):
            if isinstance(statement, gast.For) and variable in _target_names(statement.target):
                raise self.parsed.error(
                    write, f"cannot differentiate an in-place write into `{written}`, an element "
                    f"of the sequence the loop at line {self.parsed.location(statement)[0]} walks "
                    f"(the sequence would change too)",
                    hint="loop over indices and write into the sequence itself")
            if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)
                    and statement.targets[0].id == variable):
                continue
            value = statement.value
            primitive = classify(value, self.parsed, self.local_names)
            key = primitive.key
            if primitive.kind == "copy" and value.id != written and value.id not in \
                    self._chain and self._read_once(body, value.id):
                self._chain.add(value.id)
                try:
                    self.refuse_write_through_view(body, value.id, write, written,
                                                   shared or self._user_name(value.id, written))
                finally:
                    self._chain.discard(value.id)
                continue
            view = (primitive.kind == "copy" and value.id in self.local_names) or \
                (key == rules.SUBSCRIPT and index_may_view(value.slice)) or \
                key in _VIEW_KEYS or getattr(key, "__name__", None) in VIEW_FUNCTIONS or \
                bool(self._returned_locals(value))
            if view:
                message, hint = write_through_view(self.parsed, written, statement, shared)
                raise self.parsed.error(write, message, hint=hint)

    def _user_name(self, variable, written):
        """`variable` where it is a name the user wrote other than `written`, else None."""
        return None if variable == written or variable in self.parsed.temporaries else variable

    @staticmethod
    def _read_once(body, variable):
        reads = [n for n in walk(gast.Module(body=body, type_ignores=[]))
                 if isinstance(n, gast.Name) and n.id == variable and isinstance(n.ctx, gast.Load)]
        return len(reads) == 1

    def copy_written_arguments(self, body):
        """Arguments written in place are copied first: the caller's values never change."""
        written = []
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript):
                self.refuse_write_through_view(body, statement.targets[0].value.id, statement)
                written.append(statement.targets[0].value.id)
            mutation = _mutation(statement)
            if mutation is not None:
                written.append(mutation[0])
        code = []
        for param in self.params:
            if param not in written:
                continue
            code.append(build.assign(param, gast.Call(
                func=build.name(self.helper(runtime.snapshot)), args=[build.name(param)], keywords=[])))
            if param in self.wrt:
                d_param = self.tangent_name(param)
                code.append(build.assign(d_param, gast.Call(
                    func=build.name(self.helper(runtime_forward.tangent_copy)),
                    args=[build.name(d_param)], keywords=[])))
        return code

    def hoist_iterables(self, body):
        """`for v in <expr>` with a differentiable `v`: bind `<expr>` to a name first."""
        changed = False
        for statement in list(walk_statements(body)):
            for field in ("body", "orelse"):
                block = getattr(statement, field, None)
                if block:
                    changed |= self._hoist_in(block)
        return self._hoist_in(body) or changed

    def _hoist_in(self, block):
        changed = False
        for position in range(len(block) - 1, -1, -1):
            statement = block[position]
            if not isinstance(statement, gast.For) or isinstance(statement.iter, gast.Name):
                continue
            if not set(_target_names(statement.target)) & self.activity.active:
                continue
            sequence = self.namer.fresh("_seq")
            hold = gast.copy_location(build.assign(sequence, statement.iter), statement)
            statement.iter = build.name(sequence)
            block.insert(position, hold)
            changed = True
        return changed

    def analyze(self, body, outputs):
        """Activity, on a view of the body where in-place updates read as assignments.

        `add_at(d, i, g)` reads as `d = add_at(d, i, g)`. On reverse-mode code each tape entry
        pairs with the variable it restores: `tape.append(v)` reads as `tape.v = v` and
        `v = tape.pop()` as `v = tape.v` (a popped temporary, which restores an array element,
        reads every entry no variable pops).
        """
        self.tapes = set()
        self.tape_entries = {}
        if self.parsed.filename.startswith("<s2s_ad"):
            self.tapes = {s for s in self.stacks if s.startswith("tape")}
        pushed = {s: set() for s in self.tapes}
        popped = {s: set() for s in self.tapes}
        for statement in walk_statements(body):
            mutation = _mutation(statement)
            if mutation is None or mutation[0] not in self.tapes:
                continue
            if mutation[1] == "append" and isinstance(mutation[2].args[0], gast.Name):
                pushed[mutation[0]].add(mutation[2].args[0].id)
            elif mutation[1] == "pop" and isinstance(statement, gast.Assign):
                popped[mutation[0]].add(statement.targets[0].id)
        self.tape_entries = pushed
        fake = {f"{s}.{v}" for s in self.tapes for v in pushed[s]}

        def view(statements):
            out = []
            for statement in statements:
                mutation = _mutation(statement)
                if mutation is not None and mutation[0] in self.tapes:
                    tape = mutation[0]
                    if mutation[1] == "append" and isinstance(mutation[2].args[0], gast.Name):
                        entry = mutation[2].args[0].id
                        out.append(build.assign(f"{tape}.{entry}", build.name(entry)))
                    elif mutation[1] == "pop" and isinstance(statement, gast.Assign):
                        target = statement.targets[0].id
                        sources = [target] if target in pushed[tape] else \
                            sorted(pushed[tape] - popped[tape])
                        out.append(build.assign(target, gast.Tuple(
                            elts=[build.name(f"{tape}.{v}") for v in sources], ctx=gast.Load())))
                    continue
                accumulated = self.accumulation(statement)
                if accumulated is not None:
                    out.append(build.assign(accumulated[0], statement.value))
                    continue
                statement = copy.copy(statement)
                for field in ("body", "orelse"):
                    if getattr(statement, field, None):
                        setattr(statement, field, view(getattr(statement, field)))
                out.append(statement)
            return out

        return Activity(view(body), self.parsed, self.local_names | fake, self.wrt, outputs)

    def accumulation(self, statement):
        """(d, index, g) for a statement `add_at(d, index, g)` (an in-place `d[index] += g`)."""
        value = statement.value if isinstance(statement, gast.Expr) else None
        if not (isinstance(value, gast.Call) and len(value.args) == 3 and not value.keywords
                and isinstance(value.args[0], gast.Name)):
            return None
        add_at = getattr(runtime, "add_at", None)
        primitive = classify(value, self.parsed, self.local_names)
        if add_at is None or primitive.key is not add_at:
            return None
        return value.args[0].id, value.args[1], value.args[2]

    def find_stacks(self, body):
        """Lists bound to `[]` and only ever appended to or popped from (the reverse-mode tape)."""
        candidates = set()
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name) \
                    and isinstance(statement.value, gast.List) and not statement.value.elts:
                candidates.add(statement.targets[0].id)
        allowed = set()
        for statement in walk_statements(body):
            mutation = _mutation(statement)
            if mutation is not None and mutation[1] in ("append", "pop"):
                allowed.add(id(mutation[2].func.value))
            if isinstance(statement, gast.Assign) and isinstance(statement.value, gast.List) \
                    and not statement.value.elts:
                allowed.add(id(statement.targets[0]))
        for node in walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(node, gast.Name) and node.id in candidates and id(node) not in allowed:
                candidates.discard(node.id)
        return candidates

    # statements ---------------------------------------------------------------------------
    def block(self, statements, state):
        out = []
        last_line = None
        for statement in statements:
            if state is None:
                break                     # unreachable: after a break or continue
            code, state = self.statement(statement, state)
            if state is not None and isinstance(statement, (gast.Assign, gast.Expr)):
                self.track(code, state)
            if len(code) > 1 and isinstance(statement, (gast.Assign, gast.Expr)) \
                    and hasattr(statement, "lineno"):
                line = self.parsed.location(statement)[0]
                if line != last_line:
                    text = self.parsed.source_line(statement).strip()
                    if text:
                        code.insert(0, build.comment(
                            f"tangent of: {text}   [{self.parsed.filename.split('/')[-1]}:{line}]"))
                    last_line = line
            out += code
        return out, state

    def statement(self, statement, state):
        if isinstance(statement, gast.Assign):
            target = statement.targets[0]
            if isinstance(target, gast.Name):
                return self.assign(statement, state)
            if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                return self.setitem(statement, state)
            raise self.parsed.error(statement, "cannot differentiate this assignment",
                                    hint="assign to a name or to an element of a named array")
        if isinstance(statement, gast.Expr):
            return self.expression(statement, state)
        if isinstance(statement, gast.If):
            return self.branch(statement, state)
        if isinstance(statement, (gast.While, gast.For)):
            return self.loop(statement, state)
        if isinstance(statement, (gast.Break, gast.Continue)):
            return self.jump(statement, state)
        if isinstance(statement, (gast.Assert, gast.Pass)):
            return [statement], state
        if isinstance(statement, gast.Return):
            raise self.parsed.error(statement, "internal: return not lowered")
        raise self.parsed.error(statement, f"`{type(statement).__name__}` statements are not "
                                f"supported in forward mode")

    def track(self, code, state):
        """Record which tangents may now share memory: `dv = dx[i]` (and any call that may
        return what it reads) makes v a possible view of x; arithmetic makes new arrays."""
        owners = self.owners

        def readers(node):
            return {owners[n.id] for n in walk(node) if isinstance(n, gast.Name)
                    and isinstance(n.ctx, gast.Load) and n.id in owners}

        for statement in code:
            if getattr(statement, "writes_tangent", False):
                continue
            if isinstance(statement, gast.Assign):
                holders = [owners[n.id] for n in walk(statement.targets[0])
                           if isinstance(n, gast.Name) and n.id in owners]
                read = readers(statement.value)
                for holder in holders:
                    state.forget(holder)
                    state.owned.discard(holder)
                if not isinstance(statement.value, (gast.BinOp, gast.UnaryOp)):
                    for source in read:
                        for holder in holders:
                            state.alias(source, holder)
            elif isinstance(statement, gast.Expr):
                call = statement.value
                read = readers(call)
                owner = call.func.value.id if isinstance(call, gast.Call) and \
                    isinstance(call.func, gast.Attribute) and \
                    isinstance(call.func.value, gast.Name) else None
                if owner in owners:                   # dxs.append(dv): dxs now holds dv
                    for source in read - {owners[owner]}:
                        state.alias(source, owners[owner])
                else:
                    state.owned -= read

    def materialize(self, variables, state):
        """`dv = zero_tangent(v)` for tangents that must hold a value from here on."""
        code = []
        for variable in sorted(variables):
            if variable not in state.maybe:
                continue                  # unbound here: nothing can read it on this path
            if variable not in state.definite:
                self.none_init.add(variable)
            code.append(self._owned_write(build.assign(self.tangent_name(variable),
                                                       self.zero_of(build.name(variable)))))
            state.nonzero.add(variable)
            state.forget(variable)
            state.owned.add(variable)
        return code

    # assignments --------------------------------------------------------------------------
    def assign(self, statement, state):
        variable = statement.targets[0].id
        value = statement.value
        self.literals = {name: literal for name, literal in self.literals.items()
                         if name != variable and variable not in loads(literal)}
        if isinstance(value, (gast.Tuple, gast.Dict)):
            self.literals[variable] = value
        primitive = classify(value, self.parsed, self.local_names)
        mutation = _mutation(statement)
        if variable in self.tapes and isinstance(value, gast.List):
            state.nonzero.add(variable)
            state.owned.discard(variable)
            return [statement, build.assign(self.tangent_name(variable), gast.List(
                elts=[], ctx=gast.Load()))], state
        if variable not in self.activity.active:
            state.nonzero.discard(variable)
            state.owned.discard(variable)
            code = [statement]
            if mutation is not None and mutation[0] in state.nonzero:
                code.append(gast.Expr(value=self.mirror_call(mutation, state)))
            self.bind(variable, state)
            return code, state
        before, primal, after = self.tangent_of_assign(statement, variable, primitive, mutation, state)
        self.bind(variable, state)
        state.owned.discard(variable)
        if after is None:
            state.nonzero.discard(variable)
            return before + primal, state
        state.nonzero.add(variable)
        return before + primal + after, state

    @staticmethod
    def bind(variable, state):
        state.maybe.add(variable)
        state.definite.add(variable)

    def tangent_of_assign(self, statement, variable, primitive, mutation, state):
        """(code before, the primal statement(s), tangent code after or None for a zero)."""
        value = statement.value
        d_var = self.tangent_name(variable)
        if primitive.kind == "copy":
            source = self.tangent_of_atom(primitive.args[0], state)
            if source is None:
                return [], [statement], None
            return [], [statement], [build.assign(d_var, source)]
        if primitive.kind == "const" or passes_no_derivative(primitive):
            return [], [statement], None
        operands = [a for a in primitive.operands if isinstance(a, gast.Name)]
        if primitive.key == rules.SUBSCRIPT:
            operands = [primitive.args[0]] if isinstance(primitive.args[0], gast.Name) else []
        if not any(a.id in state.nonzero for a in operands) and not (
                primitive.key == "list" and not isinstance(value, gast.Call)):
            return [], [statement], None
        if primitive.kind == "opaque":
            raise self.parsed.error(value, f"cannot differentiate through a {primitive.label} "
                                    f"expression that depends on {', '.join(self.wrt)}",
                                    hint="write it with explicit loops and assignments")
        if primitive.key in ("tuple", "list") and isinstance(value, (gast.Tuple, gast.List)):
            node = type(value)(elts=[self.tangent_or_zero(e, state) for e in value.elts],
                               ctx=gast.Load())
            return [], [statement], [build.assign(d_var, node)]
        if primitive.key == "dict" and isinstance(value, gast.Dict):
            node = gast.Dict(keys=[build.clone(k) for k in value.keys],
                             values=[self.tangent_or_zero(v, state) for v in value.values])
            return [], [statement], [build.assign(d_var, node)]
        if mutation is not None and mutation[1] == "pop":
            if mutation[0] not in state.nonzero:
                return [], [statement], None
            return [], [statement], [build.assign(d_var, self.mirror_call(mutation, state))]
        rule = rules.tangent_rule(primitive.key) if primitive.key is not None else None
        if rule is None:
            handled = self.call(statement, variable, primitive, state)
            if handled is not None:
                return [], handled, []
            raise self.parsed.error(
                value, f"cannot differentiate through {primitive.label} in forward mode "
                f"(no tangent registered)",
                hint="register one with @s2s_ad.tangent, or wrap the value in "
                     "s2s_ad.stop_gradient(...) if it should be a constant",
                kind=NoDerivativeRule)
        return self.apply_rule(statement, variable, primitive, rule, state)

    def apply_rule(self, statement, variable, primitive, rule, state):
        args = list(primitive.args)
        try:
            bindings = bind(rule, args, primitive.keywords)
        except BindingError as exc:
            raise self.parsed.error(statement.value, f"the tangent rule for {primitive.label} "
                                    f"does not accept these arguments: {exc}",
                                    hint=BINDING_HINT) from None
        old = None
        if variable in loads(statement.value):
            old = self.namer.fresh(variable + "_old")
        substituted = {}
        for name, atom in bindings.items():
            if old is None:
                substituted[name] = atom
            elif isinstance(atom, list):
                substituted[name] = [_Rename(variable, old).visit(build.clone(a)) for a in atom]
            elif isinstance(atom, dict):
                substituted[name] = {k: _Rename(variable, old).visit(build.clone(a))
                                     for k, a in atom.items()}
            else:
                substituted[name] = _Rename(variable, old).visit(build.clone(atom))
        substituted[rule.result] = build.name(variable)
        defaults = _defaulted(rule, args, primitive.keywords)
        for name in defaults:
            substituted[name] = build.name(f"__default_{name}__")

        def derivative_of(param):
            atom = bindings.get(param)
            if isinstance(atom, list):
                parts = [self.tangent_of_atom(a, state) for a in atom]
                if all(p is None for p in parts):
                    return build.name(ZERO)
                return gast.Tuple(elts=[p or gast.Constant(value=None, kind=None) for p in parts],
                                  ctx=gast.Load())
            found = self.tangent_of_atom(atom, state) if atom is not None else None
            return found if found is not None else build.name(ZERO)

        instance = instantiate(rule, bindings=substituted, derivative_of=derivative_of,
                               namer=self.namer, global_name=self.global_name)
        if defaults:
            omit = _OmitDefaults(defaults)
            instance.steps = [(step[0], omit.visit(step[1])) if step[0] == "local" else
                              (step[0], step[1], omit.visit(step[2])) for step in instance.steps]
        locals_, expression = [], None
        for step in instance.steps:
            if step[0] == "local":
                locals_.append(step[1])
            else:
                expression = step[2]
        if expression is None:
            raise self.parsed.error(statement.value, f"the tangent rule for {primitive.label} "
                                    f"does not assign d[{rule.result}]")
        zero_locals = {ZERO} | {s.targets[0].id for s in locals_ if _contains_zero(s)
                                and isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)}
        terms = _terms(expression)
        kept = [(s, t) for s, t in terms if not _mentions(t, zero_locals)]
        if not kept:
            return [], [statement], None
        if len(kept) == len(terms) and len(terms) > 1:
            kept = [(s, self._unwrap_broadcast(t)) for s, t in kept]
        code = [s for s in locals_ if not _mentions(s, zero_locals)]
        code.append(build.assign(self.tangent_name(variable), _sum(kept)))
        code = _drop_unused_locals(code)
        before = []
        if old is not None and any(isinstance(n, gast.Name) and n.id == old
                                   for s in code for n in walk(s)):
            before.append(build.assign(old, build.name(variable)))
        return before, [statement], code

    def _unwrap_broadcast(self, term):
        """`broadcast_like(t, z)` -> `t` when every term of the sum survives."""
        if isinstance(term, gast.Call) and isinstance(term.func, gast.Name) and \
                self.globals.get(term.func.id) is runtime_forward.broadcast_like:
            return term.args[0]
        return term

    def _returned_locals(self, value):
        """The local names whose arrays the call `value` may return (a user function's)."""
        if not isinstance(value, gast.Call):
            return []
        returned = call_results.result_arguments(value, self.parsed, self.local_names) or ()
        return [a.id for a in returned if isinstance(a, gast.Name) and a.id in self.local_names]

    def views_of(self, container):
        """Names that may be views of (or other names for) `container`'s array."""
        if self._views is None:
            self._views = {}
            for statement in walk_statements(self.body):
                if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)):
                    continue
                value = statement.value
                for source in self._returned_locals(value):      # `v = pick(y)` may be y
                    self._views.setdefault(source, set()).add(statement.targets[0].id)
                primitive = classify(value, self.parsed, self.local_names)
                key = primitive.key
                source = primitive.args[0] if primitive.args else None
                if not isinstance(source, gast.Name) or source.id not in self.local_names:
                    continue
                view = primitive.kind == "copy" or key in _VIEW_KEYS or \
                    getattr(key, "__name__", None) in VIEW_FUNCTIONS or \
                    (key == rules.SUBSCRIPT and index_view(value.slice) == "view")
                if view:
                    self._views.setdefault(source.id, set()).add(statement.targets[0].id)
        found, todo = set(), [container]
        while todo:
            for view in self._views.get(todo.pop(), ()):
                if view not in found:
                    found.add(view)
                    todo.append(view)
        return found - {container}

    def setitem(self, statement, state):
        """`x[i] = v`: a fresh tangent for x, with dv written at i."""
        target = statement.targets[0]
        container = target.value.id
        live_views = self.views_of(container) & self.liveness.after.get(id(statement), set()) \
            & self.activity.active
        if live_views:
            view = sorted(live_views)[0]
            written = self.parsed.describe(container)
            raise self.parsed.error(
                statement, f"cannot differentiate an in-place write into `{written}` while "
                f"`{self.parsed.describe(view)}`, which may share its memory, is still used",
                hint=f"take a copy (`{self.parsed.describe_operand(view)}.copy()`) of the part "
                     f"you keep before writing into `{written}`")
        self.bind(container, state)
        if container not in self.activity.active:
            state.nonzero.discard(container)
            return [statement], state
        value = statement.value
        d_value = self.tangent_of_atom(value, state)
        if container not in state.nonzero and d_value is None:
            return [statement], state
        prepare = self.prepare_write(statement, container, state)
        write = gast.Subscript(value=build.name(self.tangent_name(container)),
                               slice=build.clone(target.slice), ctx=gast.Store())
        if d_value is not None:
            state.alias(value.id, container)          # containers of arrays hold dv itself
        return [statement] + prepare + [
            self._owned_write(build.assign(write, d_value or self.zero_of(value)))], state

    def prepare_write(self, statement, container, state):
        """Before writing into the tangent of `container` in place: make it an array of its own,
        unless it already is and nothing still in use may view it."""
        d_container = self.tangent_name(container)
        live = self.liveness.after.get(id(statement), set())
        if container in state.nonzero and container in state.owned and \
                not state.viewers(container) & live:
            return []
        if container in state.nonzero:
            fresh = gast.Call(func=build.name(self.helper(runtime_forward.tangent_copy)),
                              args=[build.name(d_container)], keywords=[])
        else:
            fresh = self.zero_of(build.name(container))
        state.nonzero.add(container)
        state.forget(container)
        state.owned.add(container)
        return [self._owned_write(build.assign(d_container, fresh))]

    @staticmethod
    def _owned_write(statement):
        statement.writes_tangent = True
        return statement

    # expression statements ----------------------------------------------------------------
    def mirror_call(self, mutation, state):
        """`dxs.method(...)` mirroring `xs.method(...)` on the list of tangents."""
        owner, method, call = mutation
        args = list(call.args)
        if method == "append":
            value = args[0]
            if owner in self.stacks and not (isinstance(value, gast.Name)
                                             and value.id in self.activity.active):
                args = [gast.Constant(value=None, kind=None)]
            else:
                args = [self.tangent_or_zero(value, state)]
        elif method == "extend":
            args = [self.tangent_or_zero(args[0], state)]
        elif method == "insert":
            args = [build.clone(args[0]), self.tangent_or_zero(args[1], state)]
        else:
            args = [build.clone(a) for a in args]
        return gast.Call(func=gast.Attribute(value=self.tangent(owner), attr=method,
                                             ctx=gast.Load()),
                         args=args, keywords=[])

    def expression(self, statement, state):
        mutation = _mutation(statement)
        if mutation is not None and mutation[0] not in self.activity.active | self.tapes:
            return [statement], state
        if mutation is not None and mutation[1] != "pop":
            owner = mutation[0]
            before = []
            if owner not in state.nonzero:
                call = mutation[2]
                if not any(isinstance(a, gast.Name) and a.id in state.nonzero for a in call.args):
                    return [statement], state
                before = self.materialize({owner}, state)
            return before + [statement, gast.Expr(value=self.mirror_call(mutation, state))], state
        if mutation is not None and mutation[1] == "pop":
            if mutation[0] in state.nonzero:
                return [statement, gast.Expr(value=self.mirror_call(mutation, state))], state
            return [statement], state
        accumulated = self.accumulation(statement)
        if accumulated is not None:
            return self.accumulate_in_place(statement, *accumulated, state), state
        value = statement.value
        if isinstance(value, gast.Call):
            primitive = classify(value, self.parsed, self.local_names)
            pure = passes_no_derivative(primitive) or (
                primitive.key is not None and rules.tangent_rule(primitive.key) is not None)
            names = [n.id for n in walk(value) if isinstance(n, gast.Name)]
            if not pure and any(n in self.activity.varied for n in names):
                raise self.parsed.error(statement, f"cannot differentiate through "
                                        f"`{self.parsed.describe_expression(value.func)}` used "
                                        f"as a statement: it may change "
                                        f"its arguments in place",
                                        hint="assign its result to a name instead")
        return [statement], state

    def accumulate_in_place(self, statement, target, index, value, state):
        """`add_at(d, i, g)`: the same on a fresh copy of d's tangent."""
        if target not in self.activity.active:
            state.nonzero.discard(target)
            return [statement]
        d_value = self.tangent_of_atom(value, state)
        if d_value is None:
            return [statement]
        d_target = self.tangent_name(target)
        prepare = self.prepare_write(statement, target, state)
        if isinstance(value, gast.Name):
            state.alias(value.id, target)
        update = gast.Expr(value=gast.Call(func=build.clone(statement.value.func), keywords=[],
                                           args=[build.name(d_target), build.clone(index), d_value]))
        return [statement] + prepare + [self._owned_write(update)]

    # calls into user functions ------------------------------------------------------------
    def call(self, statement, variable, primitive, state):
        """`y = g(a, b)` for a user function g: `y, dy = jvp_g(a, b, (da, db))`."""
        from .analysis.call_results import is_user_function
        fn = primitive.key
        call = statement.value
        if not isinstance(call, gast.Call):
            return None
        if isinstance(fn, cache._Pending) and fn.key in cache._cache:
            fn = cache._cache[fn.key].function      # a recursive derivative, finished since
        elif not isinstance(fn, type) and getattr(fn, "__s2s_generated__", None) is not None:
            fn = fn.__s2s_generated__.function      # a generated derivative, behind a wrapper
        if fn is dispatch.vjp_call:
            return self.tangent_of_vjp_call(statement, variable, state)
        if any(isinstance(a, gast.Starred) for a in call.args):
            raise self.parsed.error(call, "cannot differentiate a call with *args unpacking",
                                    hint="pass the arguments one by one")
        if not is_user_function(fn):
            if fn is None or isinstance(fn, rules.method) or (
                    not inspect.isbuiltin(fn) and not isinstance(fn, type) and callable(fn)
                    and not hasattr(fn, "__array_ufunc__")):
                return self.dynamic_call(statement, variable, primitive, state)
            return None
        signature = signature_of(fn)
        placeholders = [object() for _ in call.args]
        atoms = {id(p): a for p, a in zip(placeholders, call.args)}
        keyword_placeholders = {k.arg: object() for k in call.keywords}
        atoms.update({id(keyword_placeholders[k.arg]): k.value for k in call.keywords})
        try:
            bound = signature.bind(*placeholders, **keyword_placeholders)
        except TypeError as exc:
            raise self.parsed.error(call, f"call to {fn.__qualname__} does not match its "
                                    f"signature: {exc}") from None
        arguments, wanted, tangents = [], [], []
        for name, parameter in signature.parameters.items():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                wrapper = variadic_wrapper_error(parse_function(fn))
                if wrapper is not None:
                    raise wrapper.called_from(f"{self.parsed.where(call)} (in {self.parsed.name})")
                raise self.parsed.error(call, f"cannot differentiate {fn.__qualname__}: it takes "
                                        f"*args or **kwargs", hint="name each parameter")
            if name in bound.arguments:
                atom = build.clone(atoms[id(bound.arguments[name])])
            else:
                atom = self._constant(parameter.default, f"{fn.__name__}_{name}")
            arguments.append(atom)
            found = self.tangent_of_atom(atom, state)
            if found is not None:
                wanted.append(name)
                tangents.append(found)
        from .errors import TransformError
        try:
            function = dispatch.derive(fn, "forward", wanted)
        except TransformError as exc:
            raise exc.called_from(f"{self.parsed.where(call)} (in {self.parsed.name})") from None
        label = fn.__name__ if fn.__name__.isidentifier() else "lambda"
        name = self.global_name(f"jvp_{label}", function)
        tangent = tangents[0] if len(tangents) == 1 else gast.Tuple(elts=tangents, ctx=gast.Load())
        targets = gast.Tuple(elts=[build.name(variable, store=True),
                                   build.name(self.tangent_name(variable), store=True)],
                             ctx=gast.Store())
        invoke = gast.Call(func=build.name(name), args=arguments + [tangent], keywords=[])
        return [gast.copy_location(build.assign(targets, invoke), statement)]

    def tangent_of_vjp_call(self, statement, variable, state):
        """Reverse-mode code's run-time dispatch `vjp_call(...)`: forward mode over the callee's
        vjp, through `jvp_vjp_call`."""
        call = statement.value
        try:
            bound = inspect.signature(_vjp_call_signature).bind(*call.args, **{
                k.arg: k.value for k in call.keywords})
        except TypeError:
            return None
        bound.apply_defaults()
        arguments = [build.clone(bound.arguments[n]) for n in ("fn", "args", "kwargs", "seed", "active")]
        tangents = [self.entry_tangents(bound.arguments[n], state) for n in ("args", "kwargs")]
        seed = self.tangent_of_atom(bound.arguments["seed"], state)
        tangents.append(seed or _none_constant())
        invoke = gast.Call(func=build.name(self.helper(dispatch.jvp_vjp_call)),
                           args=arguments + tangents, keywords=[])
        targets = gast.Tuple(elts=[build.name(variable, store=True),
                                   build.name(self.tangent_name(variable), store=True)],
                             ctx=gast.Store())
        return [gast.copy_location(build.assign(targets, invoke), statement)]

    def entry_tangents(self, atom, state):
        """The tangent of the arguments `atom` that run-time dispatch receives, None for an
        entry without one: a materialized zero would make the callee's derivative treat a
        constant as varied (`0 * log(x)` is nan for x < 0 in the power rule)."""
        literal = self.literals.get(atom.id) if isinstance(atom, gast.Name) else None
        def tangent_or_none(entry):
            return self.tangent_of_atom(entry, state) or _none_constant()
        if isinstance(literal, gast.Tuple):
            return gast.Tuple(elts=[tangent_or_none(e) for e in literal.elts], ctx=gast.Load())
        if isinstance(literal, gast.Dict):
            return gast.Dict(keys=[build.clone(k) for k in literal.keys],
                             values=[tangent_or_none(v) for v in literal.values])
        return tangent_or_none(atom)

    def dynamic_call(self, statement, variable, primitive, state):
        """A callee known only at run time (a method, a callable argument): `jvp_call`."""
        call = statement.value
        if primitive.key is not None and not isinstance(primitive.key, rules.method) \
                and not call_results.is_callable_instance(primitive.key):
            return None         # named in the source, without a rule: refused now, with its line
        active, tangents = [], []
        for position, atom in enumerate(call.args):
            found = self.tangent_of_atom(atom, state)
            if found is not None:
                active.append(gast.Constant(value=position, kind=None))
                tangents.append(found)
        for keyword in call.keywords:
            found = self.tangent_of_atom(keyword.value, state)
            if found is not None:
                active.append(gast.Constant(value=keyword.arg, kind=None))
                tangents.append(found)
        if not tangents:
            return None
        helper = self.helper(dispatch.jvp_call)
        invoke = gast.Call(func=build.name(helper), keywords=[], args=[
            build.clone(call.func), gast.Tuple(elts=[build.clone(a) for a in call.args],
                                                 ctx=gast.Load()),
            gast.Dict(keys=[gast.Constant(value=k.arg, kind=None) for k in call.keywords],
                      values=[build.clone(k.value) for k in call.keywords]),
            gast.Tuple(elts=tangents, ctx=gast.Load()), gast.Tuple(elts=active, ctx=gast.Load()),
            gast.Constant(value=self._where(call), kind=None)])
        targets = gast.Tuple(elts=[build.name(variable, store=True),
                                   build.name(self.tangent_name(variable), store=True)],
                             ctx=gast.Store())
        return [gast.copy_location(build.assign(targets, invoke), statement)]

    def _where(self, node):
        """'file:line:col' of `node` in the user's file, for run-time refusals."""
        line, col = self.parsed.location(node)
        return f"{self.parsed.filename}:{line}:{col + 1}"

    def _constant(self, value, label):
        if value is None or isinstance(value, (bool, int, float, str)):
            return gast.Constant(value=value, kind=None)
        return build.name(self.global_name(label, value))

    # control flow -------------------------------------------------------------------------
    def branch(self, statement, state):
        body, after_body = self.block(statement.body, state.copy())
        orelse, after_orelse = self.block(statement.orelse, state.copy())
        if after_body is None or after_orelse is None:
            joined = after_orelse if after_body is None else after_body
        else:
            nonzero = after_body.nonzero | after_orelse.nonzero
            live = self.liveness.after[id(statement)]
            body += self.materialize((nonzero - after_body.nonzero) & live, after_body)
            orelse += self.materialize((nonzero - after_orelse.nonzero) & live, after_orelse)
            joined = _State(nonzero, after_body.maybe | after_orelse.maybe,
                            after_body.definite & after_orelse.definite,
                            after_body.owned & after_orelse.owned,
                            _merge_aliases([after_body, after_orelse]))
        new = gast.copy_location(gast.If(test=statement.test, body=body or [gast.Pass()],
                                         orelse=orelse), statement)
        return [new], joined

    def loop(self, statement, state):
        is_for = isinstance(statement, gast.For)
        assigned = set(assigned_names([statement]))
        if statement.orelse:
            if assigned & self.activity.active:
                raise self.parsed.error(statement, "`else:` on a loop is not supported here",
                                        hint="move the else block after the loop")
            state.nonzero -= assigned
            state.maybe |= assigned
            return [statement], state
        before = state
        targets = _target_names(statement.target) if is_for else []
        zipped = is_for and bool(set(targets) & self.activity.active) and \
            self.tangent_of_atom(statement.iter, before) is not None
        context = _Loop(self.liveness.head[id(statement)], self.liveness.after[id(statement)])
        self.loops.append(context)
        if zipped:
            before.owned.discard(statement.iter.id)     # its rows are viewed while iterating
            for name in targets:
                before.alias(statement.iter.id, name)
        entry = before.copy()
        saved = (set(self.namer.taken), dict(self.tangents), dict(self.globals))
        while True:
            context.entry = entry
            context.jumps = []
            inside = entry.copy()
            if is_for:
                inside.nonzero -= set(targets)
                inside.owned -= set(targets)
                if zipped:
                    inside.nonzero |= set(targets) & self.activity.active
                inside.maybe |= set(targets)
                inside.definite |= set(targets)
            body, end = self.block(statement.body, inside)
            reached = [s for s in [end] + [j for j, _ in context.jumps] if s is not None]
            nonzero = set(entry.nonzero).union(*(s.nonzero for s in reached))
            maybe = set(entry.maybe).union(*(s.maybe for s in reached))
            # a tangent is its own array at the head when it is so before the loop and at the
            # end of every pass (where it is materialized, it is fresh)
            owned = before.owned | (nonzero - before.nonzero)
            for back in [end] + [j for j, is_break in context.jumps if not is_break]:
                if back is not None:
                    owned &= back.owned | (nonzero - back.nonzero)
            aliases = _merge_aliases([entry] + [r for r in reached])
            grew = not (nonzero <= entry.nonzero and maybe <= entry.maybe) or \
                any(not holders <= entry.aliases.get(k, set()) for k, holders in aliases.items())
            if not grew:
                owned &= entry.owned
                if owned == entry.owned:
                    break
            entry = _State(nonzero, maybe, before.definite, owned, aliases)
            self.namer.taken = set(saved[0])
            self.tangents = dict(saved[1])
            self.owners = {t: v for v, t in self.tangents.items()}
            self.globals.clear()
            self.globals.update(saved[2])
        self.loops.pop()
        if end is not None:
            body += self.materialize((entry.nonzero - end.nonzero) & context.head_live, end)
        head = self.materialize((entry.nonzero - before.nonzero) & context.head_live, before)
        if is_for:
            target, iterable = build.clone(statement.target), statement.iter
            if zipped:
                d_target = build.clone(statement.target)
                for node in walk(d_target):
                    if isinstance(node, gast.Name):
                        node.id = self.tangent_name(node.id)
                target = gast.Tuple(elts=[target, d_target], ctx=gast.Store())
                iterable = gast.Call(func=build.name("zip"), keywords=[], args=[
                    build.clone(statement.iter), self.tangent_of_atom(statement.iter, before)])
            new = gast.For(target=target, iter=iterable, body=body or [gast.Pass()], orelse=[],
                           type_comment=None)
        else:
            new = gast.While(test=statement.test, body=body or [gast.Pass()], orelse=[])
        gast.copy_location(new, statement)
        owned = set(entry.owned)
        exits = [entry]
        for exit_state, is_break in context.jumps:
            if is_break:
                owned &= exit_state.owned
                exits.append(exit_state)
        after = _State(entry.nonzero, entry.maybe, before.definite, owned, _merge_aliases(exits))
        return head + [new], after

    def jump(self, statement, state):
        if not self.loops:
            raise self.parsed.error(statement, f"`{type(statement).__name__.lower()}` outside a loop")
        loop = self.loops[-1]
        live = loop.exit_live if isinstance(statement, gast.Break) else loop.head_live
        code = self.materialize((loop.entry.nonzero - state.nonzero) & live, state)
        loop.jumps.append((state, isinstance(statement, gast.Break)))
        return code + [statement], None


def _drop_unused_locals(code):
    """Template temporaries whose every use was dropped with a zero term."""
    while True:
        used = set()
        for statement in code:
            used |= loads(statement)
        keep = [s for s in code if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                                        and s.targets[0].id.startswith("_")
                                        and s.targets[0].id not in used)]
        if len(keep) == len(code):
            return code
        code = keep
