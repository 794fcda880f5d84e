"""Optimize a day's heating schedule for a simple thermal model of a building.

The model is a Python loop over hours: the room loses heat to the outside through the walls
and gains what the heater puts in. The loss trades the energy used against the discomfort of
being away from 21 °C while people are in. s2s_ad differentiates straight through the loop,
and plain gradient descent finds the schedule.

    python examples/building_heating.py [plot.png]     # the plot needs matplotlib
"""
import sys

import numpy as np

import s2s_ad as ad

HOURS = 24
OUTSIDE = 5.0 + 4.0 * np.sin(np.linspace(0, 2 * np.pi, HOURS, endpoint=False) - 2.0)
OCCUPIED = np.array([1.0 if 7 <= h <= 9 or 17 <= h <= 23 else 0.0 for h in range(HOURS)])
TARGET = 21.0


def simulate(power, start=16.0, leak=0.15, gain=0.6):
    """Room temperature at the end of each hour for heater power `power` (kW per hour)."""
    temperature = start
    temperatures = np.zeros(HOURS)
    for hour in range(HOURS):
        temperature = temperature + leak * (OUTSIDE[hour] - temperature) + gain * power[hour]
        temperatures[hour] = temperature
    return temperatures


def cost(power, comfort_weight=1.0, energy_price=0.05):
    temperatures = simulate(power)
    discomfort = np.sum(OCCUPIED * (temperatures - TARGET) ** 2)
    energy = energy_price * np.sum(power ** 2) / HOURS
    return comfort_weight * discomfort / HOURS + energy


def optimize(steps=200, learning_rate=0.3, verbose=True):
    power = np.zeros(HOURS)
    step = ad.value_and_grad(cost)
    history = []
    for i in range(steps):
        loss, grad = step(power)
        power = np.maximum(power - learning_rate * grad, 0.0)   # a heater cannot cool
        history.append(float(loss))
        if verbose and (i % 20 == 0 or i == steps - 1):
            print(f"step {i:4d}  cost {loss:8.3f}")
    return power, history


def main(plot_path=None):
    power, history = optimize()
    temperatures = simulate(power)
    print("hour  outside  power  room")
    for hour in range(0, HOURS, 3):
        print(f"{hour:4d}  {OUTSIDE[hour]:7.1f}  {power[hour]:5.1f}  {temperatures[hour]:4.1f}")
    assert history[-1] < 0.5 * history[0], "the schedule did not improve"
    if plot_path:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: skipping the plot")
            return
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
        top.plot(temperatures, label="room")
        top.plot(OUTSIDE, label="outside")
        top.axhline(TARGET, color="gray", linestyle=":", label="target")
        top.set_ylabel("°C")
        top.legend()
        bottom.bar(range(HOURS), power)
        bottom.set_ylabel("heater power")
        bottom.set_xlabel("hour")
        fig.savefig(plot_path)
        print(f"plot written to {plot_path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
