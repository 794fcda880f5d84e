"""A building's temperature hour by hour: a scalar Python loop of float arithmetic, the kind
of simulation code where every step is a handful of operations on single numbers."""
import numpy as np


def heating_cost(heating, outside, start=16.0, leak=0.15, gain=0.6, target=21.0, price=0.05):
    temperature = start
    cost = 0.0
    for t in range(len(outside)):
        temperature = temperature + leak * (outside[t] - temperature) + gain * heating[t]
        cost = cost + (temperature - target) ** 2 + price * heating[t] ** 2
    return cost / len(outside)


def heating_cost_by_hand(heating, outside, start=16.0, leak=0.15, gain=0.6, target=21.0,
                         price=0.05):
    steps = len(outside)
    temperatures = []
    temperature = start
    for t in range(steps):
        temperature = temperature + leak * (outside[t] - temperature) + gain * heating[t]
        temperatures.append(temperature)
    # A degree at hour t costs now and, shrunk by (1 - leak) an hour, at every later hour.
    grad = np.empty(steps)
    d_temperature = 0.0
    for t in reversed(range(steps)):
        d_temperature = 2 * (temperatures[t] - target) / steps + (1 - leak) * d_temperature
        grad[t] = gain * d_temperature + 2 * price * heating[t] / steps
    return grad


def inputs(rng, steps):
    hours = np.arange(steps) % 24
    outside = [float(v) for v in 5.0 + 4.0 * np.sin(2 * np.pi * hours / 24 - 2.0)]
    return rng.uniform(0, 6, size=steps), outside
