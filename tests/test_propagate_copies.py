"""PropagateCopies: a derivative temporary that only copies another name is read through,
never where the two could differ."""
import ast
import textwrap

import gast

from s2s_ad.optimize.fold_temporaries import NameCounts
from s2s_ad.optimize.propagate_copies import PropagateCopies
from s2s_ad.traversal import name_nodes


def propagated(source):
    function = gast.parse(textwrap.dedent(source)).body[0]
    function = PropagateCopies().run(function, NameCounts(name_nodes(function)))
    return ast.unparse(gast.gast_to_ast(function)).split("\n", 1)[1]


def run(source, **values):
    namespace = {}
    exec(textwrap.dedent(source), namespace)
    return namespace["f"](**values)


def lines(text):
    return [line.strip() for line in text.strip().splitlines()]


def test_a_copy_read_later_is_read_through():
    assert lines(propagated("""
        def f(dy):
            d_add = dy
            d_sin = d_add * 2
            dx = d_add + d_sin
            return dx
        """)) == ["d_sin = dy * 2", "dx = dy + d_sin", "return dx"]


def test_not_where_the_source_is_rebound_before_a_read():
    source = """
        def f(dy):
            d_add = dy
            dy = dy * 3
            dx = d_add + dy
            return dx
        """
    assert "d_add = dy" in propagated(source)
    assert run(source, dy=1.0) == 4.0


def test_copying_back_keeps_them_equal():
    assert lines(propagated("""
        def f(dcost, s):
            d_add = dcost
            dcost = d_add
            d_sub = d_add * s
            return dcost + d_sub
        """)) == ["d_sub = dcost * s", "return dcost + d_sub"]


def test_not_into_a_loop_or_branch_nor_for_the_users_names():
    source = """
        def f(dy, n):
            d_add = dy
            for i in range(n):
                dy = dy + d_add
            dx = dy
            return dx
        """
    assert "d_add = dy" in propagated(source) and "dx = dy" in propagated(source)
    assert run(source, dy=1.0, n=3) == 4.0
