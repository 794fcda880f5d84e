"""The benchmark workloads: each a function as a user writes it, its gradient written out by
hand in NumPy, the arguments to differentiate (`wrt`, as `s2s_ad.grad` takes it) and inputs."""
from dataclasses import dataclass
from typing import Callable

from . import building, control, layered, logsumexp, mlp, rnn


@dataclass(frozen=True)
class Workload:
    name: str
    function: Callable
    by_hand: Callable
    make_inputs: Callable       # rng -> the argument tuple
    wrt: object                 # an index or a tuple of indices
    about: str


WORKLOADS = {w.name: w for w in [
    Workload("building_20", building.heating_cost, building.heating_cost_by_hand,
             lambda rng: building.inputs(rng, 20), 0, "building heating, 20 hourly steps"),
    Workload("building_1000", building.heating_cost, building.heating_cost_by_hand,
             lambda rng: building.inputs(rng, 1000), 0, "building heating, 1000 hourly steps"),
    Workload("mlp", mlp.mlp_loss, mlp.mlp_loss_by_hand,
             lambda rng: mlp.inputs(rng, 256, (64, 128, 10)), 0, "batch 256, 64-128-10, dict"),
    Workload("mlp_small", mlp.mlp_loss, mlp.mlp_loss_by_hand,
             lambda rng: mlp.inputs(rng, 8, (4, 8, 3)), 0, "batch 8, 4-8-3, dict"),
    Workload("rnn", rnn.rnn_loss, rnn.rnn_loss_by_hand,
             lambda rng: rnn.inputs(rng, 50, 16, 64), (0, 1), "50 steps, batch 16, hidden 64"),
    Workload("control", control.grow, control.grow_by_hand,
             lambda rng: control.inputs(rng, 1000), 0, "data-dependent while/if, 1000 elements"),
    Workload("logsumexp", logsumexp.logsumexp, logsumexp.logsumexp_by_hand,
             lambda rng: logsumexp.inputs(rng, (1000, 1000)), 0, "1000x1000"),
    Workload("layered", layered.loss, layered.loss_by_hand,
             lambda rng: layered.inputs(rng, 256, (64, 128, 128, 10)), 0,
             "loss -> model -> dense -> act, batch 256, 64-128-128-10"),
    Workload("layered_small", layered.loss, layered.loss_by_hand,
             lambda rng: layered.inputs(rng, 8, (4, 8, 8, 3)), 0,
             "loss -> model -> dense -> act, batch 8, 4-8-8-3"),
]}
