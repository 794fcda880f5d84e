#!/usr/bin/env bash
# Write derivative modules with the s2s-ad command line, then import and use them.
#
#   bash examples/cli_demo.sh            (from anywhere; set PYTHON to pick an interpreter)
#
# `s2s-ad` is the installed command; `python -m s2s_ad` is the same program and works from a
# source checkout too, so this script uses it.
set -euo pipefail

PYTHON="${PYTHON:-python}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"                                   # paths in the headers are relative to here
export PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "== show: the generated derivative of loss with respect to W and b"
"$PYTHON" -m s2s_ad show examples/cli_model.py:loss --wrt W,b

echo "== grad: write it as a module, then the same without s2s_ad at run time (--standalone)"
"$PYTHON" -m s2s_ad grad examples/cli_model.py:loss --wrt W,b -o "$out/loss_grad.py"
"$PYTHON" -m s2s_ad grad examples/cli_model.py:loss --wrt W,b --standalone \
    -o "$out/standalone/"
echo "-- header of loss_grad.py:"
head -n 7 "$out/loss_grad.py"

echo "== rules: which NumPy functions have derivative rules (first lines of the table)"
"$PYTHON" -m s2s_ad rules > "$out/rules.txt"
grep -E "^(function|np\.sin) " "$out/rules.txt"

echo "== grad again without --force: refused, the file is kept"
if "$PYTHON" -m s2s_ad grad examples/cli_model.py:loss --wrt W,b -o "$out/loss_grad.py"; then
    echo "unexpected: the existing file was overwritten" >&2
    exit 1
fi

echo "== check-stale: the written modules still match their source (exit 1 when one does not)"
"$PYTHON" -m s2s_ad check-stale "$out"

echo "== check: compare with central differences"
"$PYTHON" -m s2s_ad check examples/cli_model.py:loss --wrt W,b \
    --args 'rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))'

echo "== import the written modules and compare with s2s_ad.grad in memory"
"$PYTHON" - "$out" <<'PY'
import importlib.util
import sys

import numpy as np

import s2s_ad
sys.path.insert(0, "examples")
import cli_model


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


out = sys.argv[1]
rng = np.random.default_rng(0)
W, b = rng.normal(size=(3, 2)), rng.normal(size=2)
x, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
expected = s2s_ad.grad(cli_model.loss, wrt=("W", "b"))(W, b, x, y)
for path, name in [(f"{out}/loss_grad.py", "loss_grad"),
                   (f"{out}/standalone/loss_grad.py", "loss_grad_standalone")]:
    dW, db = load(path, name).grad_loss(W, b, x, y)
    assert np.allclose(dW, expected[0]) and np.allclose(db, expected[1]), path
    print(f"{name}.grad_loss matches s2s_ad.grad: dW[0] = {np.round(dW[0], 6)}")
print("cli demo done")
PY
