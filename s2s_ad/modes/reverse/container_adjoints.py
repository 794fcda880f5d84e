"""The adjoints of writes into lists, dicts and arrays: `v = xs.pop()`, `xs.append(v)` and
`x[index] = v`, for AdjointEmitter."""
import gast

from ... import build, runtime
from .tape import Restore


class ContainerAdjoints:
    """Part of AdjointEmitter: expects `adjoints`, `nonzero`, `activity`, `restores`, `arrays`,
    `containers` (local names always holding a list, tuple or dict), `lists`,
    `range_counters`, `helper`, `accumulate`, `adjoint_name`, `restore` and `namer`."""

    def adjoint_of_pop(self, statement, container):
        """v = xs.pop(): dv becomes the entry of dxs that v left; the backward re-appends v.
        `v = xs.pop(i)` puts dv back at i, moving the entries after it up, and re-inserts v."""
        variable = statement.targets[0].id
        index = statement.value.args[0] if statement.value.args else None
        code = []
        d_variable = self.adjoints.get(variable)
        d_container = self.adjoints.get(container)
        position = None if index is None else self._position(runtime.popped_from, index, container)
        # dxs keeps one entry per entry of xs, popped value read or not: a later read of xs
        # by position (`xs[-1]`) finds its adjoint at the same position
        if container in self.activity.active and (d_variable in self.nonzero
                                                  or d_container in self.nonzero):
            d_container = self.adjoint_name(container)
            current = d_container if d_container in self.nonzero else "None"
            entry = d_variable if d_variable in self.nonzero else "None"
            put = build.quote_expr(f"{self.helper(runtime.put_entry)}({current}, len({container}), "
                                   f"{entry})") if index is None else build.quote_expr(
                f"{self.helper(runtime.insert_entry)}({current}, {{p}}, {entry})", p=position)
            code.append(build.assign(d_container, put))
            self.nonzero.add(d_container)
        self.nonzero.discard(d_variable)
        marker = Restore(statement, build.name(container))
        marker.undo = build.quote(f"{container}.append({variable})")[0] if index is None else \
            build.quote(f"{container}.insert({{p}}, {variable})", p=position)[0]
        self.restores.append(marker)
        return code + [marker.node, self.restore(statement, statement.targets[0])]

    def adjoint_of_insert(self, statement, container, index, value):
        """xs.insert(i, v): v receives the entry of dxs at i, which then leaves dxs; the
        backward pass then pops it from xs again."""
        code = []
        d_container = self.adjoints.get(container)
        position = self._position(runtime.inserted_at, index, container)
        if d_container in self.nonzero:
            if isinstance(value, gast.Name) and value.id in self.activity.active:
                code.append(self.accumulate(value.id, build.quote_expr(
                    f"{self.helper(runtime.element)}({d_container}, {{p}}, {value.id})",
                    p=position)))
            code.append(build.assign(d_container, build.quote_expr(
                f"{self.helper(runtime.drop_entry)}({d_container}, {{p}})", p=position)))
        marker = Restore(statement, build.name(container))
        marker.undo = build.quote(f"{container}.pop({{p}})", p=position)[0]
        self.restores.append(marker)
        return code + [marker.node]

    def _position(self, helper, index, container):
        """Where in `container` (as it is after the call) `xs.insert(index, ...)` or
        `xs.pop(index)` acted: the index itself where it is a constant that counts from the
        start; else the helper, which counts a negative index from the end."""
        if isinstance(index, gast.Constant) and type(index.value) is int and (
                index.value == 0 or index.value > 0 and helper is runtime.popped_from):
            return build.clone(index)
        return build.quote_expr(f"{self.helper(helper)}({{i}}, len({container}))", i=index)

    def adjoint_of_append(self, statement, container, value):
        """xs.append(v): v receives the last entry of dxs; the backward pass then pops xs."""
        code = []
        d_container = self.adjoints.get(container)
        if d_container in self.nonzero:
            length = build.quote_expr(f"len({container}) - 1")
            if isinstance(value, gast.Name) and value.id in self.activity.active:
                code.append(self.accumulate(value.id, build.quote_expr(
                    f"{self.helper(runtime.element)}({d_container}, {{n}}, {value.id})", n=length)))
            code.append(build.assign(d_container, build.quote_expr(
                f"{self.helper(runtime.truncate)}({d_container}, {{n}})", n=length)))
        marker = Restore(statement, build.name(container))
        marker.undo = build.quote(f"{container}.pop()")[0]
        self.restores.append(marker)
        return code + [marker.node]

    def adjoint_of_setitem(self, statement):
        """x[index] = value: the value receives dx[index]; that slot of dx is then zero."""
        target = statement.targets[0]
        container = target.value.id
        d_container = self.adjoint_name(container)
        if d_container not in self.nonzero:
            return []
        code = []
        value = statement.value
        index = build.to_index_value(target.slice)
        zero_slot = build.assign(d_container, build.quote_expr(
            f"{self.helper(runtime.zero_at)}({d_container}, {{i}})", i=index))
        if not (isinstance(value, gast.Name) and value.id in self.activity.active):
            return [zero_slot]
        read = gast.Subscript(value=build.name(d_container), slice=build.clone(target.slice),
                              ctx=gast.Load())
        if self._may_repeat(target.slice) and container not in self.containers:
            # `y[[1, 1]] = v`: only the last write to a position stays, only it gets the adjoint
            read = build.quote_expr(f"{self.helper(runtime.last_writes)}({d_container}, {{i}})",
                                    i=build.to_index_value(target.slice))
        elif container not in self.arrays:
            # a list or dict adjoint may lack the entry (`d['m'] = x`, never read): a zero
            read = build.quote_expr(f"{self.helper(runtime.element)}({d_container}, {{i}}, {value.id})",
                                    i=build.to_index_value(target.slice))
        if value.id == container:
            # `w[:] = w`: take the slot's adjoint before zeroing it, then hand it to the value
            slot = self.namer.fresh(d_container + "_slot")
            return [build.assign(slot, read), zero_slot, self.accumulate(value.id, build.quote_expr(
                f"{self.helper(runtime.unbroadcast)}({slot}, {value.id})"))]
        code.append(self.accumulate(value.id, build.quote_expr(
            f"{self.helper(runtime.unbroadcast)}({{g}}, {value.id})", g=read)))
        return code + [zero_slot]

    def _may_repeat(self, index):
        """May the index name a position twice (an array or list of positions)? Not when each
        part is a slice, a constant or the variable of a `for` loop over a range."""
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        return not all(isinstance(p, (gast.Slice, gast.Constant)) or (
            isinstance(p, gast.Name) and p.id in self.range_counters) for p in parts)
