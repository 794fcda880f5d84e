"""A refusal is raised from the API's entry point: the user's traceback shows their call and
the message, not the transformer's frames; S2S_AD_FULL_TRACEBACK=1 keeps them."""
import os
import traceback

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import FULL_TRACEBACK, UnsupportedSyntax

PACKAGE = os.path.dirname(ad.__file__)


def runs_exec(x):
    exec("pass")
    return np.sum(x)


def frames_inside_s2s_ad(error):
    return [f for f in traceback.extract_tb(error.__traceback__)
            if f.filename.startswith(PACKAGE)]


@pytest.mark.parametrize("call", [
    lambda: ad.grad(runs_exec)(np.ones(2)),
    lambda: ad.jvp(runs_exec)(np.ones(2), tangent=np.ones(2)),
    lambda: ad.hessian(runs_exec)(np.ones(2)),
    lambda: ad.source(ad.grad(runs_exec)),
], ids=["grad", "jvp", "hessian", "source"])
def test_a_refusal_shows_the_users_call_and_the_message(call, monkeypatch):
    monkeypatch.delenv(FULL_TRACEBACK, raising=False)
    ad.clear_cache()
    with pytest.raises(UnsupportedSyntax, match="exec") as info:
        call()
    assert len(frames_inside_s2s_ad(info.value)) == 1
    assert info.value.__suppress_context__ and info.value.__cause__ is None


def test_the_full_chain_on_request(monkeypatch):
    monkeypatch.setenv(FULL_TRACEBACK, "1")
    ad.clear_cache()
    with pytest.raises(UnsupportedSyntax) as info:
        ad.grad(runs_exec)(np.ones(2))
    assert len(frames_inside_s2s_ad(info.value)) > 5
