"""The fast tree helpers agree with the standard library's slow ones they replace.

`s2s_ad.traversal` stands in for `ast.walk` and `s2s_ad.standard_ast` for `gast.gast_to_ast`;
both are checked on the user programs of the test suite and on the derivative code generated
for them (the trees the passes really see).
"""
import ast
import inspect

import gast
import pytest

import golden_programs
import s2s_ad as ad
from s2s_ad import build
from s2s_ad.standard_ast import to_ast
from s2s_ad.traversal import identifiers, loads, name_nodes, preorder, rewrite, stores, walk

EXTRA = """
def extra(a, *rest, key=None, **options):
    global counter
    values = {**options, 'k': [v for v in rest if v is not None]}
    lam = lambda q, r=2: q ** r
    try:
        del values['k']
    except (KeyError, ValueError) as error:
        raise RuntimeError(f"{error!r:>10} and {a}") from None
    with open(a) as handle, open(key) as other:
        a, *b = handle.read(), other
    class Inner:
        attribute: int = 3
    return (x for x in b if x > -1.5) and not a < 2 <= key or ~a @ a
"""


def _trees():
    trees = [gast.parse(EXTRA)]
    for name, (fn, wrt) in sorted(golden_programs.CASES.items()):
        trees.append(gast.parse(inspect.getsource(fn)))
        trees.append(gast.parse(ad.source(ad.grad(fn, wrt=wrt))))
    return trees


TREES = _trees()


def _reference_names(tree, context):
    return {n.id for n in ast.walk(tree) if isinstance(n, gast.Name)
            and (context is None or isinstance(n.ctx, context))}


@pytest.mark.parametrize("k", range(len(TREES)))
def test_walk_visits_what_ast_walk_visits_in_the_same_order(k):
    tree = TREES[k]
    assert [id(n) for n in walk(tree)] == [id(n) for n in ast.walk(tree)]


@pytest.mark.parametrize("k", range(len(TREES)))
def test_name_sets_match_a_walk(k):
    tree = TREES[k]
    assert loads(tree) == _reference_names(tree, gast.Load)
    assert stores(tree) == _reference_names(tree, gast.Store)
    definitions = {n.name for n in ast.walk(tree) if isinstance(n, (gast.FunctionDef, gast.ClassDef))}
    assert identifiers(tree) == _reference_names(tree, None) | definitions
    assert len(name_nodes(tree)) == sum(isinstance(n, gast.Name) for n in ast.walk(tree))


@pytest.mark.parametrize("k", range(len(TREES)))
def test_preorder_meets_nodes_as_a_node_visitor_does(k):
    tree = TREES[k]
    order = []

    class Record(ast.NodeVisitor):
        def generic_visit(self, node):
            order.append(node)
            super().generic_visit(node)

    Record().visit(tree)
    operators = (gast.expr_context, gast.operator, gast.boolop, gast.unaryop, gast.cmpop)
    assert [id(n) for n in preorder(tree)] == [id(n) for n in order if not isinstance(n, operators)]


def test_preorder_does_not_enter_pruned_nodes():
    body = gast.parse("assert f(x)\ny = g(z)\n").body
    names = [n.id for n in preorder(body, prune=(gast.Assert,)) if isinstance(n, gast.Name)]
    assert names == ["y", "g", "z"]


def test_name_sets_of_a_list_of_statements():
    body = gast.parse("y = x + z\nz = y\n").body
    assert loads(body) == {"x", "y", "z"}
    assert stores(body) == {"y", "z"}


@pytest.mark.parametrize("k", range(len(TREES)))
def test_conversion_unparses_like_gast_to_ast(k):
    tree = TREES[k]
    expected = ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(build.clone(tree))))
    assert ast.unparse(to_ast(tree)) == expected


def test_conversion_compiles_to_the_same_code():
    converted = ast.fix_missing_locations(to_ast(gast.parse(EXTRA)))
    namespace = {}
    exec(compile(converted, "<converted>", "exec"), namespace)
    assert inspect.signature(namespace["extra"]) == inspect.signature(
        _defined(EXTRA)["extra"])


def _defined(source):
    namespace = {}
    exec(source, namespace)
    return namespace


def test_negative_base_of_a_power_keeps_its_parentheses():
    power = gast.BinOp(left=gast.Constant(value=-0.5, kind=None), op=gast.Pow(),
                       right=gast.Name(id="n", ctx=gast.Load(), annotation=None, type_comment=None))
    text = ast.unparse(to_ast(power))
    assert eval(text, {"n": 2}) == 0.25


def test_rewrite_replaces_children_first():
    tree = gast.parse("y = (1 + 2) * (3 + x)\n")

    def fold(node):
        if isinstance(node.left, gast.Constant) and isinstance(node.right, gast.Constant):
            return gast.Constant(value=node.left.value + node.right.value, kind=None)
        return node

    rewrite(tree, {gast.BinOp: fold})
    assert ast.unparse(to_ast(tree)) == "y = 3 * (3 + x)"

