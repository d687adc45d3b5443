#!/usr/bin/env python3
"""Each foot's impact heights in walking traces of the Oxford Step Counter format (docs/steps.md).

For every step of the foot switches (a 0 -> 1 transition of foot1_down or foot2_down), the
highest point, within 0.25 s after it, of the band-passed acceleration magnitude the step
detector sees (slow mean of 1 s taken off, two first-order low passes at 3 Hz) and of the
component along gravity (the acceleration low-passed over 1 s); the median and tenth percentile
per foot. Needs numpy.

    scripts/step-impacts.py DATA_DIR TRACE [TRACE ...]

Data: Oxford Step Counter data set, https://github.com/Oxford-step-counter/DataSet, CC BY 4.0.
"""
import os
import sys

import numpy as np


def load(directory, name):
    samples = np.genfromtxt(os.path.join(directory, name + ".csv"), delimiter=",", skip_header=1)
    switches = np.genfromtxt(os.path.join(directory, name + ".gt.csv"), delimiter=",", skip_header=1)
    time = samples[:, 0] * 1e-9
    acceleration = -samples[:, 1:4] / 9.80665  # Android m/s^2, face up +9.81 -> Core Motion's g
    steps = []
    for column, foot in ((1, "foot1"), (2, "foot2")):
        state = switches[:, column]
        for i in range(1, len(state)):
            if state[i - 1] == 0 and state[i] == 1:
                steps.append((switches[i, 0] * 1e-9, foot))
    return time, acceleration, sorted(steps)


def band_pass(time, signal, cutoff=3.0, mean_time_constant=1.0):
    mean, low1, low2 = signal[0], 0.0, 0.0
    tau = 1 / (2 * np.pi * cutoff)
    out = np.zeros_like(signal)
    for i in range(1, len(signal)):
        dt = min(time[i] - time[i - 1], 0.1)
        if dt > 0:
            mean += (signal[i] - mean) * dt / (mean_time_constant + dt)
            gain = dt / (tau + dt)
            low1 += (signal[i] - mean - low1) * gain
            low2 += (low1 - low2) * gain
        out[i] = low2
    return out


def vertical(time, acceleration, time_constant=1.0):
    gravity = acceleration[0].copy()
    out = np.zeros(len(acceleration))
    for i in range(len(acceleration)):
        dt = min(time[i] - time[i - 1], 0.1) if i else 0.0
        if dt > 0:
            gravity += (acceleration[i] - gravity) * dt / (time_constant + dt)
        out[i] = acceleration[i] @ gravity / np.linalg.norm(gravity)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    directory = sys.argv[1]
    for name in sys.argv[2:]:
        time, acceleration, steps = load(directory, name)
        magnitude = band_pass(time, np.linalg.norm(acceleration, axis=1))
        along_gravity = band_pass(time, vertical(time, acceleration))
        for foot in ("foot1", "foot2"):
            heights = []
            for step_time, which in steps:
                window = (time >= step_time - 0.05) & (time <= step_time + 0.25)
                if which == foot and window.any():
                    heights.append((magnitude[window].max(), along_gravity[window].max()))
            heights = np.array(heights)
            print(f"{name} {foot}: {len(heights)} steps; magnitude median {np.median(heights[:, 0]):.3f} g "
                  f"(10th percentile {np.percentile(heights[:, 0], 10):.3f}); along gravity median "
                  f"{np.median(heights[:, 1]):.3f} g (10th percentile {np.percentile(heights[:, 1], 10):.3f})")


if __name__ == "__main__":
    main()
