#!/usr/bin/env python3
"""VQF on BROAD with the advantages `motion-lab evaluate --cross-validate` gives our filter.

Our filter's cross-validated figures (docs/benchmarks.md) choose, in each leave-one-kind-out fold,
the sensors' latency, the magnetometer's extra lag and the filter's time constants on the training
kinds, and score the held-out kind. VQF run at its defaults with no latency gets none of that. This
script gives VQF the same: in each fold it picks, on the training kinds alone and with the same
objective (mean 9D total error plus mean 6D inclination error, each relative to the fold's value at
the defaults), the sensors' latency (its output turned on by the current bias-free rate for that
long, as AttitudeFilter's `sensorLatency` does), the magnetometer's extra lag (the field turned back
by the current rate, m - lag * (w x m), as `magnetometerLag` does) and its two time constants
(tauAcc, tauMag from a quarter to four times their defaults: our descent's half and twice, over its
two passes) by exhaustive search over the grid below (at least as good for VQF as our coordinate
descent over the same ranges), and scores the held-out kind with them. The folds and the error
metric are those of motion-lab and the BROAD scorer (../shared/tools/broad_peers.py): per trial the
RMSE over movement samples, per group the plain mean; the kinds from the trial names
(BroadTrial.kind).

Setup: python3 -m venv /tmp/peers && /tmp/peers/bin/pip install vqf numpy
Run:   /tmp/peers/bin/python scripts/vqf-cross-validated.py --data ../shared/data/broad [--every 3]
`--every 3` takes every 3rd sample (285.7 Hz -> 95.2 Hz), as `motion-lab evaluate --rate 100`.
"""
import argparse
import itertools
import json
import os
import sys

import numpy as np

KINDS = [("slow_rotation", "slow rotation"), ("fast_rotation", "fast rotation"), ("translation", "translation"),
         ("combined", "combined rotation and translation"), ("tapping", "tapping"), ("vibration", "vibration"),
         ("stationary_magnet", "stationary magnet"), ("attached_magnet", "attached magnet")]
LATENCIES = [i * 0.001 for i in range(-6, 9)]             # s, -6-8 ms (motion-lab: 0-8 ms; VQF, which
# integrates each sample over the interval before it, runs half an interval ahead: at 95.2 Hz 5.25 ms,
# more than BROAD's 4.1 ms lag, so its best latency there may be negative)
MAG_LAGS = [i * 0.002 for i in range(-2, 5)]               # s, -4-8 ms (motion-lab: -4-8 ms)
TAU_FACTORS = [0.25, 0.5, 1.0, 2.0, 4.0]                 # motion-lab: half and twice, two passes


def kind(name):
    low = name.lower()
    return next((k for pattern, k in KINDS if pattern in low), name)


def load(path, every):
    a = np.loadtxt(path, delimiter=',', skiprows=1)[::every]
    t = a[:, 0]
    return dict(rate=1.0 / np.median(np.diff(t)), gyr=np.ascontiguousarray(a[:, 1:4]),
                acc=np.ascontiguousarray(a[:, 4:7]), mag=np.ascontiguousarray(a[:, 7:10]),
                ref=a[:, 10:14], movement=a[:, 14] > 0.5)


def qmul(a, b):
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=1)


def turned(q, rate, latency):
    """q turned on by `rate` (body frame, rad/s) for `latency` s: q * exp(rate * latency / 2)."""
    if latency == 0:
        return q
    angle = np.linalg.norm(rate, axis=1) * latency
    half = angle / 2
    s = np.where(angle > 1e-12, np.sin(half) / np.where(angle > 1e-12, angle, 1), 0.5) * latency
    step = np.column_stack([np.cos(half), s[:, None] * rate])
    return qmul(q, step)


def scores(est, trial):
    est = est / np.linalg.norm(est, axis=1, keepdims=True)
    ref = trial['ref'] / np.linalg.norm(trial['ref'], axis=1, keepdims=True)
    e = qmul(est, ref * np.array([1, -1, -1, -1]))
    w, z = np.abs(e[:, 0]), e[:, 3]
    total = np.degrees(2 * np.arccos(np.clip(w, 0, 1)))
    incl = np.degrees(2 * np.arccos(np.clip(np.sqrt(e[:, 0] ** 2 + z ** 2), 0, 1)))
    m = trial['movement'] & ~np.isnan(total)
    return float(np.sqrt(np.mean(total[m] ** 2))), float(np.sqrt(np.mean(incl[m] ** 2)))


def run(trial, tau_acc, tau_mag, lag):
    from vqf import VQF
    v = VQF(1.0 / trial['rate'], tauAcc=3.0 * tau_acc, tauMag=9.0 * tau_mag)
    gyr, mag = trial['gyr'], trial['mag']
    if lag != 0:
        mag = np.ascontiguousarray(mag - lag * np.cross(gyr, mag))
    out = v.updateBatch(gyr, trial['acc'], mag)
    rate = gyr - out['bias'] if 'bias' in out else gyr
    return out['quat6D'], out['quat9D'], rate


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--data', required=True, help='a BROAD folder (index.json or *.csv)')
    parser.add_argument('--every', type=int, default=1, help='take every k-th sample (3: 95.2 Hz)')
    parser.add_argument('--json', help='write the per-trial figures here')
    args = parser.parse_args()
    if not os.path.isdir(args.data):
        sys.exit(f"error: no BROAD folder at {args.data}: pass --data with the folder that holds its CSV trials")
    names = sorted(f[:-4] for f in os.listdir(args.data) if f.endswith('.csv'))
    if not names:
        sys.exit(f"error: {args.data} holds no CSV trial: pass --data with BROAD's trial folder")
    trials = [load(os.path.join(args.data, n + '.csv'), args.every) for n in names]
    print(f"{len(names)} trials at {trials[0]['rate']:.1f} Hz", flush=True)

    # s9[(tau_acc, tau_mag, lag, latency)][t], s6[(tau_acc, latency)][t]
    s9, s6 = {}, {}
    for ta, tm, lag in itertools.product(TAU_FACTORS, TAU_FACTORS, MAG_LAGS):
        for t, trial in enumerate(trials):
            q6, q9, rate = run(trial, ta, tm, lag)
            for latency in LATENCIES:
                s9.setdefault((ta, tm, lag, latency), [0.0] * len(trials))[t] = scores(turned(q9, rate, latency), trial)[0]
                if (ta, latency) not in s6 or s6[(ta, latency)][t] is None:
                    s6.setdefault((ta, latency), [None] * len(trials))[t] = scores(turned(q6, rate, latency), trial)[1]
    combos = [(ta, tm, lag, lat) for ta, tm, lag, lat in itertools.product(TAU_FACTORS, TAU_FACTORS, MAG_LAGS, LATENCIES)]
    default = (1.0, 1.0, 0.0, 0.0)

    kinds = [kind(n) for n in names]
    held9, held6, chosen = [0.0] * len(trials), [0.0] * len(trials), {}
    for k in dict.fromkeys(kinds):
        train = [t for t in range(len(trials)) if kinds[t] != k]
        base9 = np.mean([s9[default][t] for t in train])
        base6 = np.mean([s6[(1.0, 0.0)][t] for t in train])

        def objective(c):
            return (np.mean([s9[c][t] for t in train]) / base9
                    + np.mean([s6[(c[0], c[3])][t] for t in train]) / base6)
        best = min(combos, key=objective)
        chosen[k] = best
        for t in range(len(trials)):
            if kinds[t] == k:
                held9[t], held6[t] = s9[best][t], s6[(best[0], best[3])][t]
        print(f"fold {k}: tauAcc x{best[0]:g}, tauMag x{best[1]:g}, magnetometer lag {best[2] * 1000:g} ms, "
              f"latency {best[3] * 1000:g} ms", flush=True)

    def groups(values):
        und = [v for n, v in zip(names, values) if 'undisturbed' in n]
        dis = [v for n, v in zip(names, values) if 'undisturbed' not in n]
        return np.mean(und), np.mean(dis), np.mean(values)
    zero9 = [s9[default][t] for t in range(len(trials))]
    zero6 = [s6[(1.0, 0.0)][t] for t in range(len(trials))]
    print("VQF, degrees, undisturbed / disturbed / all:")
    print("  defaults, latency 0:   9D %.2f / %.2f / %.2f   6D %.2f / %.2f / %.2f" % (*groups(zero9), *groups(zero6)))
    print("  cross-validated:       9D %.2f / %.2f / %.2f   6D %.2f / %.2f / %.2f" % (*groups(held9), *groups(held6)))
    print("trial                                          9D defaults  cross-val   6D defaults  cross-val")
    for t, n in enumerate(names):
        print(f"{n:46s} {zero9[t]:10.2f} {held9[t]:10.2f} {zero6[t]:12.2f} {held6[t]:10.2f}")
    if args.json:
        with open(args.json + '.partial', 'w') as f:
            json.dump(dict(rate=trials[0]['rate'], trials=names, defaults9D=zero9, defaults6D=zero6,
                           crossValidated9D=held9, crossValidated6D=held6,
                           chosen={k: dict(tauAcc=c[0], tauMag=c[1], magnetometerLag=c[2], latency=c[3])
                                   for k, c in chosen.items()}), f, indent=1)
        os.replace(args.json + '.partial', args.json)


if __name__ == '__main__':
    main()
