"""Which rules of a group of tables some rows reach: a rule added to templates/ without a row
that reaches it fails the test of its group."""
import s2s_ad as ad
from s2s_ad import rules


def untested_rules(monkeypatch, modules, run_rows):
    """'adjoint of f' / 'tangent of f' for each rule registered from templates/<module>.py (for
    each of `modules`) that no lookup made while `run_rows()` transforms the rows reached."""
    used = set()

    def spy(lookup):
        def looked_up(primal):
            rule = lookup(primal)
            if rule is not None:
                used.add(id(rule))
            return rule
        return looked_up

    monkeypatch.setattr(rules, "adjoint_rule", spy(rules.adjoint_rule))
    monkeypatch.setattr(rules, "tangent_rule", spy(rules.tangent_rule))
    ad.clear_cache()
    try:
        run_rows()
    finally:
        ad.clear_cache()
    names = {f"s2s_ad.templates.{name}" for name in modules}
    return sorted(f"{kind} of {getattr(key, '__name__', None) or key!r}"
                  for kind, table_ in (("adjoint", rules.ADJOINTS), ("tangent", rules.TANGENTS))
                  for key, rule in table_.items()
                  if rule.template.__module__ in names and id(rule) not in used)


def rows_built(rows, tangent_only_rows=(), second_order_rows=(), seeded=None):
    """What `untested_rules` runs for a table: the vjp and jvp of every row, the jvp of the
    rows only forward mode takes, and, with `seeded(row) -> (rng, args, seed, seeded_sum)`,
    the hvp of `second_order_rows` (which reaches the rules of the helpers gradients call)."""
    from test_rules import _direction, _wrt

    def run():
        for row in rows:
            ad.source(ad.vjp(row.fn, wrt=_wrt(row.wrt)))
        for row in [*rows, *tangent_only_rows]:
            ad.source(ad.jvp(row.fn, wrt=_wrt(row.wrt)))
        for row in second_order_rows:
            rng, args, seed, seeded_sum = seeded(row)
            vector = tuple(_direction(rng, args[k]) for k in row.wrt)
            ad.hvp(seeded_sum, wrt=tuple(2 + k for k in row.wrt))(row.fn, seed, *args,
                                                                   vector=vector)
    return run
