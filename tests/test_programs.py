"""Whole programs: calls into user functions, classes, containers, recursion, has_aux."""
import inspect

import numpy as np
import pytest

import programs as P
import s2s_ad as ad
from fd import assert_close, numerical_grad

rng = np.random.default_rng(7)


def fd_wrt(fn, args, argnum):
    return numerical_grad(fn, args, argnum)


def test_mlp_with_parameter_dict():
    params = {"W1": rng.normal(size=(3, 5)), "b1": rng.normal(size=5),
              "W2": rng.normal(size=(5, 2)), "b2": rng.normal(size=2)}
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    grads = ad.grad(P.mlp_loss)(params, x, y)
    assert set(grads) == set(params)
    for key in params:
        def loss_of(value, key=key):
            return P.mlp_loss({**params, key: value}, x, y)
        assert grads[key].shape == params[key].shape
        assert_close(grads[key], fd_wrt(loss_of, [params[key]], 0))


def test_rnn_with_step_helper_and_list_of_states():
    xs = rng.normal(size=(6, 3))
    W, U = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 3)) * 0.5
    grads = ad.grad(P.rnn_loss, wrt=(0, 1, 2))(xs, W, U)
    for argnum, g in enumerate(grads):
        assert_close(g, fd_wrt(P.rnn_loss, [xs, W, U], argnum))


def test_module_level_model_object():
    x = rng.normal(size=3)
    expected = fd_wrt(P.global_model_loss, [x], 0)
    assert_close(ad.grad(P.global_model_loss)(x), expected)
    v = rng.normal(size=3)
    assert_close(ad.jvp(P.global_model_loss)(x, tangent=v)[1], expected @ v)


def test_class_based_model():
    model = P.MLP([3, 4, 2], rng)
    x = rng.normal(size=3)
    assert_close(ad.grad(P.class_model_loss)(x, model), fd_wrt(P.class_model_loss, [x, model], 0))


def test_dataclass_method():
    affine = P.Affine(scale=rng.normal(size=3), shift=0.3)
    x = rng.normal(size=3)
    assert_close(ad.grad(P.dataclass_loss)(x, affine), fd_wrt(P.dataclass_loss, [x, affine], 0))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_recursive_power(n):
    x = 1.3
    assert_close(ad.grad(P.rpow)(x, n), n * x ** (n - 1) if n else 0.0)


def test_recursive_tree_sum():
    x = rng.normal(size=3)
    assert_close(ad.grad(P.tree_sum)(x, 3), fd_wrt(P.tree_sum, [x, 3], 0))


def test_has_aux_on_grad_and_value_and_grad():
    x = rng.normal(size=4)
    g, aux = ad.grad(P.with_aux, has_aux=True)(x)
    assert_close(g, 2 * x)
    assert_close(aux["mean"], x.mean())
    (loss, aux2), g2 = ad.value_and_grad(P.with_aux, has_aux=True)(x)
    assert_close(loss, np.sum(x ** 2))
    assert_close(g2, 2 * x)


def test_math_functions_on_floats():
    a, b = 0.7, -0.4
    ga, gb = ad.grad(P.math_on_floats, wrt=(0, 1))(a, b)
    assert isinstance(ga, float) and isinstance(gb, float)
    assert_close(ga, fd_wrt(P.math_on_floats, [a, b], 0))
    assert_close(gb, fd_wrt(P.math_on_floats, [a, b], 1))


def test_module_constants():
    x = rng.normal(size=3)
    assert_close(ad.grad(P.module_constants)(x), fd_wrt(P.module_constants, [x], 0))


def test_no_grad_block_is_constant():
    x = rng.normal(size=3)
    # scale is a constant: d/dx sum(x * scale) = scale
    assert_close(ad.grad(P.uses_no_grad)(x), np.full(3, np.sum(x * x)))


def test_non_differentiable_calls_pass_through():
    x = rng.normal(size=6)
    assert_close(ad.grad(P.non_differentiable_calls)(x),
                 fd_wrt(P.non_differentiable_calls, [x], 0), rtol=1e-5)


@pytest.mark.parametrize("fn", [P.calls_with_defaults, P.calls_other_module, P.calls_closure,
                                P.unpacks_pair])
def test_calls_into_user_functions(fn):
    x = rng.normal(size=3) + 2.0
    assert_close(ad.grad(fn)(x), fd_wrt(fn, [x], 0), rtol=1e-5)


def test_star_args_forwarding_to_a_known_callee():
    x, w = rng.normal(size=3), rng.normal(size=3)
    gx, gw = ad.grad(P.forwards_star_args, wrt=(0, 1))(x, w)
    assert_close(gx, fd_wrt(P.forwards_star_args, [x, w], 0))
    assert_close(gw, fd_wrt(P.forwards_star_args, [x, w], 1))


def test_dead_code_is_left_out_and_effects_are_kept(capsys):
    source = ad.source(ad.grad(P.with_dead_code))
    assert "unused" not in source and "np.cos" not in source
    x = rng.normal(size=3)
    assert_close(ad.grad(P.with_dead_code)(x), 2 * x)
    assert "the sum is" in capsys.readouterr().out


def test_loop_over_the_keys_of_a_dict_parameter():
    p, x = {"a": rng.normal(size=2), "b": rng.normal(size=2)}, rng.normal(size=2)
    gp, gx = ad.grad(P.loop_over_dict_keys, wrt=(0, 1))(p, x)
    assert set(gp) == {"a", "b"}
    for key in p:
        assert_close(gp[key], fd_wrt(lambda v: P.loop_over_dict_keys({**p, key: v}, x), [p[key]], 0))
    assert_close(gx, fd_wrt(P.loop_over_dict_keys, [p, x], 1))


@pytest.mark.parametrize("fn", [P.nested_functions, P.nested_calling_nested])
def test_nested_def_and_lambda_with_captured_variables(fn):
    x, w = rng.normal(size=3), rng.normal(size=3)
    gx, gw = ad.grad(fn, wrt=(0, 1))(x, w)
    assert_close(gx, fd_wrt(fn, [x, w], 0))
    assert_close(gw, fd_wrt(fn, [x, w], 1))


def test_a_one_line_callee_is_copied_in_at_each_call():
    # passes/inline_helpers.py: no call into its derivative is left (the gradient is checked
    # against differences with the other programs)
    source = ad.source(ad.grad(P.calls_with_defaults))
    assert "keyword_callee(" not in "\n".join(
        line for line in source.splitlines() if not line.lstrip().startswith("#"))


def test_tuple_and_nested_parameter_containers():
    ws = (rng.normal(size=3), rng.normal(size=3))
    x = rng.normal(size=3)
    g = ad.grad(P.tuple_param)(ws, x)
    assert isinstance(g, tuple) and len(g) == 2
    assert_close(g[0], fd_wrt(lambda w: P.tuple_param((w, ws[1]), x), [ws[0]], 0))
    assert_close(g[1], fd_wrt(lambda w: P.tuple_param((ws[0], w), x), [ws[1]], 0))
    p = {"layer": [rng.normal(size=3), rng.normal(size=3)], "scale": 1.5}
    g = ad.grad(P.nested_params)(p, x)
    assert isinstance(g["layer"], list) and isinstance(g["scale"], float)
    assert_close(g["layer"][0], p["scale"] * x)
    assert_close(g["layer"][1], np.full(3, p["scale"]))
    assert_close(g["scale"], np.sum(p["layer"][0] * x + p["layer"][1]))


def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_appending_to_an_argument_is_refused():
    with pytest.raises(ad.TransformError) as info:
        ad.grad(P.appends_to_argument, wrt=1)([], rng.normal(size=2))
    assert f"programs.py:{_line_of(P.appends_to_argument, 'xs.append')}:" in str(info.value)


def test_callee_error_points_at_the_callee_with_the_call_chain():
    with pytest.raises(ad.TransformError) as info:
        ad.grad(P.calls_bad_callee)(rng.normal(size=2))
    message = str(info.value)
    assert message.startswith(f"{inspect.getsourcefile(P)}:{_line_of(P.writes_global, 'global LEARNING')}:")
    assert f"called from {inspect.getsourcefile(P)}:{_line_of(P.calls_bad_callee, 'writes_global(x)')}" in message


def test_a_rebound_callee_is_followed_by_the_backward_pass(monkeypatch):
    x = np.array([2.0, -1.0])
    df = ad.grad(P.calls_squared)
    assert_close(df(x), 2 * x)
    monkeypatch.setattr(P, "squared", P.cube)     # the forward pass now calls cube
    assert_close(df(x), 3 * x ** 2)
    assert_close(ad.grad(P.calls_squared)(x), 3 * x ** 2)


@ad.grad(wrt="w")
def grad_of_weighted_square(x, w):
    return np.sum(w * x * x)


@ad.grad
def grad_of_cube_sum(x):
    return np.sum(x ** 3)


def test_grad_as_a_decorator_with_and_without_arguments():
    x, w = rng.normal(size=3), rng.normal(size=3)
    assert_close(grad_of_weighted_square(x, w), x * x)
    assert_close(grad_of_cube_sum(x), 3 * x * x)


def test_verbose_prints_the_generated_source_once(capsys):
    df = ad.grad(P.cube, verbose=True)
    df(1.5)
    df(2.0)
    out = capsys.readouterr().out
    assert out.count("def grad_cube(") == 1 and "# grad of: return x ** 3" in out


def test_tracebacks_show_the_generated_lines():
    import traceback
    df = ad.value_and_grad(P.pick)
    with pytest.raises(IndexError) as info:
        df(np.ones(3), 7)
    frames = traceback.extract_tb(info.value.__traceback__)
    generated = [f for f in frames if f.filename.startswith("<s2s_ad vjp_pick")]
    assert generated and "x[i]" in generated[-1].line, "the generated line comes from linecache"
    # grad's code does not compute the value, `x[i] * 2.0`; the index is read by the adjoint
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 3"):
        ad.grad(P.pick)(np.ones(3), 7)
