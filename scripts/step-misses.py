#!/usr/bin/env python3
"""Where a step counter misses the foot switches' steps, in traces of the Oxford Step Counter format.

For each trace: the foot switches' steps (0 -> 1 transitions of foot1_down or foot2_down, as the
data set counts them) against the steps a copy of Fusion's StepDetector counts (its defaults, or
--due-step-window 0.25 --back-fills-walk-start for steps 6 and 7 as tried at commit 0181738 (docs/steps.md, "Steps 6 and 7 cross-validated"); a copy for this
diagnosis only: motion-lab is the measure). Each switch step is matched to a counted step at most
0.15 s before and 0.35 s after it (alternating steps first); a switch step left over is
  same foot again  the same foot's switch closed again with the other's not between (a bounce),
  before / after   before the first or after the last counted step,
  weak             a lobe of the band-passed magnitude there fell under the height threshold,
  too soon         a lobe there came too soon after the candidate before,
  gate             a candidate there the walking gate did not count,
  no lobe          nothing in the band-passed magnitude there.
Then, for the same-foot-again steps: the highest lobe of the band-passed magnitude between the
alternating steps around them (from 0.2 s after the one before to the one after), against the
same for every ordinary step interval (no same-foot step in it): a step the accelerometer sees
has a lobe there, a switch's bounce need not. Needs numpy.

    scripts/step-misses.py DATA_DIR TRACE [TRACE ...] [--due-step-window 0.25] [--back-fills-walk-start]

Data: Oxford Step Counter data set, https://github.com/Oxford-step-counter/DataSet, CC BY 4.0.
"""
import argparse
import math
import os
from collections import Counter

import numpy as np


def load(directory, name):
    samples = np.genfromtxt(os.path.join(directory, name + ".csv"), delimiter=",", skip_header=1)
    switches = np.genfromtxt(os.path.join(directory, name + ".gt.csv"), delimiter=",", skip_header=1)
    start = samples[0, 0]
    time = (samples[:, 0] - start) * 1e-9
    acceleration = -samples[:, 1:4] / 9.80665  # Android m/s^2, face up +9.81 -> Core Motion's g
    steps = []
    for column in (1, 2):
        state = switches[:, column]
        for i in range(1, len(state)):
            if state[i - 1] == 0 and state[i] == 1:
                steps.append(((switches[i, 0] - start) * 1e-9, column - 1))
    return time, np.linalg.norm(acceleration, axis=1), sorted(steps)


class Detector:
    """StepDetector's steps 1-4, 6 and 7 with its default parameters (step 5 off, as by default)."""

    def __init__(self, due_step_window=0.0, back_fills=False):
        self.cutoff, self.peak, self.relative, self.minimum, self.maximum = 3.0, 0.03, 0.3, 0.3, 1.3
        self.gate, self.tolerance, self.fraction = 5, 0.4, 0.5
        self.window, self.due_threshold, self.back_fills = due_step_window, 0.01, back_fills
        self.walking, self.mean_interval, self.last = False, 0.0, None
        self.pending, self.run, self.last_interval, self.earlier_interval = 0, [], 0.0, 0.0
        self.level, self.foot_levels, self.foot = 0.0, [0.0, 0.0], 0
        self.recent, self.counted, self.weak, self.soon, self.candidates = [], [], [], [], []

    def signal(self, time, magnitude):
        """The band-passed magnitude (steps 1-2)."""
        out = np.zeros(len(time))
        mean, low1, low2 = magnitude[0], 0.0, 0.0
        tau = 1 / (2 * math.pi * self.cutoff)
        for i in range(1, len(time)):
            dt = min(time[i] - time[i - 1], 0.1)
            if dt <= 0:
                out[i] = low2
                continue
            mean += (magnitude[i] - mean) * dt / (1 + dt)
            gain = dt / (tau + dt)
            low1 += (magnitude[i] - mean - low1) * gain
            low2 += (low1 - low2) * gain
            out[i] = low2
        return out

    def count(self, time, magnitude):
        s = self.signal(time, magnitude)
        active, peak, peak_time = False, 0.0, 0.0
        for i in range(1, len(time)):
            if s[i] > 0:
                if not active or s[i] > peak:
                    peak, peak_time = s[i], time[i]
                active = True
            elif active:
                active = False
                level = self.foot_levels[self.foot] or self.level
                threshold = max(self.peak, self.relative * level)
                if self.window > 0 and self.walking and self.last is not None and \
                        abs(peak_time - self.last - self.mean_interval) <= self.window * self.mean_interval:
                    threshold = min(threshold, self.due_threshold)
                if peak >= threshold:
                    self.level = peak if self.level == 0 else self.level + (peak - self.level) * 0.2
                    f = self.foot
                    self.foot_levels[f] = peak if self.foot_levels[f] == 0 else self.foot_levels[f] + (peak - self.foot_levels[f]) * 0.2
                    self.foot = 1 - f
                    self.candidate(peak_time)
                else:
                    self.weak.append(peak_time)
            if self.last is not None and time[i] - self.last > self.maximum and (self.walking or self.pending):
                self.end()
        return s

    def close(self, interval, reference, tolerance=None):
        return reference > 0 and abs(interval - reference) <= (tolerance or self.tolerance) * reference

    def candidate(self, time):
        self.candidates.append(time)
        self.recent = (self.recent + [time])[-8:]
        if self.last is None:
            self.last, self.pending, self.run = time, 1, [time]
            return
        interval = time - self.last
        if interval < self.minimum or (self.walking and interval < self.fraction * self.mean_interval):
            self.soon.append(time)
            if not self.walking:
                self.last, self.pending, self.run, self.last_interval, self.earlier_interval = time, 1, [time], 0.0, 0.0
            return
        self.last = time
        if self.walking:
            self.counted.append(time)
            self.mean_interval += (interval - self.mean_interval) * 0.25
            return
        consistent = self.last_interval == 0 or self.close(interval, self.last_interval) or self.close(interval, self.earlier_interval)
        self.run = self.run + [time] if consistent else [self.run[-1], time]
        self.pending = len(self.run)
        self.earlier_interval, self.last_interval = self.last_interval, interval
        if self.pending < self.gate:
            return
        self.walking, self.mean_interval = True, interval
        if self.back_fills:
            mean = (self.run[-1] - self.run[0]) / (len(self.run) - 1)
            later = self.run[0]
            for earlier in [t for t in self.recent if t < self.run[0]][::-1][:3]:
                gap = later - earlier
                if gap >= self.minimum and self.close(gap, mean):
                    self.counted.append(earlier)
                elif self.close(gap, 2 * mean, 0.15):
                    self.counted += [earlier, earlier + gap / 2]
                else:
                    break
                later = earlier
        self.counted += self.run
        self.pending, self.run = 0, []

    def end(self):
        self.walking, self.pending, self.run, self.last = False, 0, [], None
        self.last_interval = self.earlier_interval = self.level = 0.0
        self.foot_levels, self.foot, self.recent = [0.0, 0.0], 0, []


def lobes(time, s):
    """The highest point of every lobe of s above zero: (times, heights)."""
    positive = np.concatenate(([False], s > 0, [False]))
    edges = np.flatnonzero(np.diff(positive.astype(int)))
    peaks = [a + np.argmax(s[a:b]) for a, b in zip(edges[::2], edges[1::2])]
    return time[peaks], s[peaks]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data")
    parser.add_argument("traces", nargs="+")
    parser.add_argument("--due-step-window", type=float, default=0.0)
    parser.add_argument("--back-fills-walk-start", action="store_true")
    arguments = parser.parse_args()
    for name in arguments.traces:
        time, magnitude, steps = load(arguments.data, name)
        detector = Detector(arguments.due_step_window, arguments.back_fills_walk_start)
        s = detector.count(time, magnitude)
        counted = sorted(detector.counted)
        same = [i > 0 and steps[i - 1][1] == steps[i][1] for i in range(len(steps))]
        used, matched = set(), set()
        for bounce in (False, True):
            for i, (t, _) in enumerate(steps):
                if same[i] != bounce:
                    continue
                k = next((k for k, c in enumerate(counted) if k not in used and t - 0.15 <= c <= t + 0.35), None)
                if k is not None:
                    used.add(k)
                    matched.add(i)
        misses = Counter()
        near = lambda times, t: any(t - 0.15 <= x <= t + 0.35 for x in times)
        for i, (t, _) in enumerate(steps):
            if i in matched:
                continue
            if same[i]:
                kind = "same foot again"
            elif not counted or t < counted[0]:
                kind = "before"
            elif t > counted[-1]:
                kind = "after"
            elif near(detector.weak, t):
                kind = "weak"
            elif near(detector.soon, t):
                kind = "too soon"
            elif near(detector.candidates, t):
                kind = "gate"
            else:
                kind = "no lobe"
            misses[kind] += 1
        print(f"{name}: switch steps {len(steps)}, counted {len(counted)} ({len(counted) - len(used)} matching no switch step)")
        print("  switch steps not counted: " + ", ".join(f"{kind} {n}" for kind, n in misses.most_common()))
        # The lobes between the alternating steps around each same-foot step, and in ordinary intervals.
        lobe_times, lobe_heights = lobes(time, s)
        alternating = np.array([t for i, (t, _) in enumerate(steps) if not same[i]])
        bounce_times = np.array([t for i, (t, _) in enumerate(steps) if same[i]])
        def highest(lo, hi):
            inside = (lobe_times > lo + 0.2) & (lobe_times < hi)
            return lobe_heights[inside].max() if inside.any() else 0.0
        bounces, ordinary = [], []
        for k in range(1, len(alternating)):
            lo, hi = alternating[k - 1], alternating[k]
            if hi - lo > 1.3:
                continue
            holds = ((bounce_times > lo) & (bounce_times < hi)).any()
            (bounces if holds else ordinary).append(highest(lo, hi))
        bounces, ordinary = np.array(bounces), np.array(ordinary)
        if len(bounces):
            print(f"  same-foot steps between alternating ones: {len(bounces)}; a lobe of 0.03 g or more between "
                  f"(after 0.2 s): {np.sum(bounces >= 0.03)} ({100 * np.mean(bounces >= 0.03):.0f} %), none at all: "
                  f"{np.sum(bounces == 0)}; ordinary intervals: {len(ordinary)}, with such a lobe "
                  f"{100 * np.mean(ordinary >= 0.03):.0f} %")


if __name__ == "__main__":
    main()
