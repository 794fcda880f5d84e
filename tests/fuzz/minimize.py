"""Shrink a failing generated program to a small reproducer (statement-level delta debugging).

    python -m tests.fuzz.minimize SEED [--all-features]

Works on the clean source alone: a candidate is kept when it still runs, finite differences at
two step sizes agree with each other, and s2s_ad still fails the same way (a wrong gradient, a
wrong value, a crash that is not a TransformError, or optimizer on/off disagreeing). Prints the
minimized module. Always read the result: the last steps (renaming, inlining) are by hand.
"""
import argparse
import ast
import copy
import sys
import tempfile

import numpy as np

from . import generator, oracle


def _fd(fn, args, positions, eps):
    templates = [args[j] for j in positions]
    x0 = np.concatenate([oracle.flatten(t) for t in templates]) if templates else np.zeros(0)
    sizes = [oracle.flatten(t).size for t in templates]
    out = np.zeros_like(x0)
    for i in range(x0.size):
        for sign in (1.0, -1.0):
            x = x0.copy()
            x[i] += sign * eps
            parts, offset = [], 0
            for t, size in zip(templates, sizes):
                parts.append(oracle.unflatten(t, x[offset:offset + size]))
                offset += size
            out[i] += sign * float(fn(*oracle._with_wrt(args, positions, parts)))
    return out / (2 * eps)


def failure_kind(source, program, args, directory, seconds=10):
    """The kind of failure `source` shows ('gradient', 'value', 'crash', 'optimizer'), or None
    (also when it takes over `seconds`: deleting a loop counter's increment loops forever)."""
    import signal

    def timeout(signum, frame):
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(seconds)
    try:
        return _failure_kind(source, program, args, directory)
    except TimeoutError:
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _failure_kind(source, program, args, directory):
    candidate = copy.copy(program)
    candidate.source = source
    try:
        module = oracle.load(candidate, directory)
    except Exception:
        return None
    try:
        f = getattr(module, program.entry, None)
        if f is None:
            return None
        positions = oracle._positions(program)
        with np.errstate(all="raise", under="ignore"):
            try:
                value = float(f(*copy.deepcopy(args)))
                fd1 = _fd(lambda *a: f(*copy.deepcopy(list(a))), args, positions, 1e-6)
                fd2 = _fd(lambda *a: f(*copy.deepcopy(list(a))), args, positions, 1e-5)
            except Exception:
                return None
        if not np.isfinite(value):
            return None
        import s2s_ad
        from s2s_ad import pipeline
        from s2s_ad.errors import TransformError
        single = not isinstance(program.wrt, tuple)
        try:
            got, grads = s2s_ad.value_and_grad(f, wrt=program.wrt)(*copy.deepcopy(args))
        except TransformError:
            return None
        except Exception as e:
            return f"crash ({type(e).__name__})"       # shrinking keeps the exception type
        if not oracle._close(got, value, 1e-9, 1e-12):
            return "value"
        g = oracle.flatten(grads if not single else (grads,))
        if g.shape != fd1.shape or oracle.same_structure(
                grads, args[oracle._positions(program)[0]] if single
                else tuple(args[j] for j in oracle._positions(program))):
            return "structure"
        error = float(np.max(np.abs(g - fd1)))
        spread = float(np.max(np.abs(fd1 - fd2))) if fd1.size else 0.0
        scale = max(1.0, float(np.max(np.abs(fd1))) if fd1.size else 1.0)
        if not oracle._grad_ok(g, fd1) and spread < 0.1 * error \
                and spread < 1e-3 * scale and scale < oracle.MAX_GRADIENT:
            return "gradient"
        try:
            value_u, grads_u = pipeline.reverse_mode(f, program.wrt_names, optimize=False) \
                .function(*copy.deepcopy(args), None)
        except TransformError:
            return "optimizer"
        except Exception as e:
            return f"crash ({type(e).__name__}, optimizer off)"
        grads_u = (grads_u,) if len(program.wrt_names) == 1 else grads_u
        if not oracle._close(oracle.flatten(grads_u), g, 1e-7, 1e-9):
            return "optimizer"
        return None
    finally:
        oracle.unload(module)
        s2s_ad_clear()


def s2s_ad_clear():
    import s2s_ad
    s2s_ad.clear_cache()


def _bodies(tree):
    """Every statement list in the tree (function bodies, branches, loop bodies)."""
    for node in ast.walk(tree):
        for attr in ("body", "orelse"):
            block = getattr(node, attr, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield node, attr, block


def _candidates(source):
    """Smaller variants of `source`, biggest cuts first."""
    tree = ast.parse(source)
    # drop whole top-level functions other than the entry point
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.FunctionDef) and node.name != "f":
            t = copy.deepcopy(tree)
            del t.body[i]
            yield t
    count = sum(len(b) for _, _, b in _bodies(tree))
    for k in range(count):
        t = copy.deepcopy(tree)
        seen = 0
        for node, attr, block in _bodies(t):
            if seen + len(block) > k:
                j = k - seen
                stmt = block[j]
                # replace a compound statement by its body, or delete the statement
                options = []
                if isinstance(stmt, (ast.If, ast.For, ast.While)):
                    options.append(stmt.body)
                    if getattr(stmt, "orelse", None):
                        options.append(stmt.orelse)
                options.append([])
                for replacement in options:
                    yield _replace(t, node, attr, j, replacement)
                break
            seen += len(block)
    # replace an expression by one of its operands (shape errors are weeded out by running it)
    count = sum(1 for _ in ast.walk(tree))
    for k in range(count):
        for choice in range(3):
            t = copy.deepcopy(tree)
            target = next(n for j, n in enumerate(ast.walk(t)) if j == k)
            replaced = _shrink_expression(t, target, choice)
            if replaced:
                yield t


def _operands(node):
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.Call):
        return list(node.args) + ([node.func.value] if isinstance(node.func, ast.Attribute)
                                  and not isinstance(node.func.value, ast.Name) else [])
    if isinstance(node, ast.Subscript):
        return [node.value]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    return []


def _shrink_expression(tree, target, choice):
    operands = _operands(target)
    if choice >= len(operands):
        return False
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, operands[choice])
                return True
            if isinstance(value, list):
                for j, item in enumerate(value):
                    if item is target:
                        value[j] = operands[choice]
                        return True
    return False


def _replace(tree, node, attr, j, replacement):
    original = getattr(node, attr)
    saved = list(original)
    new = saved[:j] + list(replacement) + saved[j + 1:]
    if not new:
        new = [ast.Pass()]
    setattr(node, attr, new)
    result = copy.deepcopy(tree)
    setattr(node, attr, saved)
    return result


def minimize(program, args, directory, log=print, checkpoint=None):
    """The smallest variant of the program found that fails the same way (and its kind);
    `checkpoint`: a file that always holds the best variant so far (for long runs)."""
    kind = failure_kind(program.source, program, args, directory)
    if kind is None:
        raise SystemExit("the program does not fail on the clean source alone")
    source = program.source
    changed = True
    while changed:
        changed = False
        for tree in _candidates(source):
            try:
                text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
            except Exception:
                continue
            if text == source or len(text) >= len(source):
                continue
            if failure_kind(text, program, args, directory) == kind:
                source = text
                changed = True
                log(f"  {kind}: {len(source.splitlines())} lines")
                if checkpoint:
                    with open(checkpoint, "w") as fh:
                        fh.write(source)
                break
    return source, kind


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("--all-features", action="store_true")
    parser.add_argument("--checkpoint", help="file that always holds the best variant so far")
    options = parser.parse_args(argv)
    enable = generator.ALL_FEATURES if options.all_features else frozenset()
    program = generator.generate(options.seed, enable)
    with tempfile.TemporaryDirectory(prefix="s2s_fuzz_min_") as directory:
        outcome = oracle.check(program, directory)
        if outcome.status != "fail":
            raise SystemExit(f"seed {options.seed}: {outcome.status}, nothing to minimize")
        source, kind = minimize(program, outcome.args, directory,
                                log=lambda m: print(m, file=sys.stderr),
                                checkpoint=options.checkpoint)
    print(f"# seed {options.seed}: {kind}; wrt={program.wrt!r}")
    print(f"# args = {outcome.args!r}")
    print(source)


if __name__ == "__main__":
    main()
