#!/usr/bin/env python3
"""Where in a BROAD trial an estimate loses: the 9D total error's RMS and the mean signed heading
error (degrees) in windows of the trial's moving part, for `motion-lab evaluate --out` folders and
VQF run on the same data (BROAD's metric, from ../shared/tools/broad_peers.py).

  python3 scripts/broad-windows.py --peers ../shared/tools/broad_peers.py --data DIR \
      --trial 15_undisturbed_fast_translation_A [--window 5] OUT [OUT ...]

DIR is the folder `evaluate` read (or its --write-trials folder, for a --rate run); each OUT is an
`evaluate --out` folder. Needs numpy and vqf (pip install vqf numpy)."""
import argparse
import importlib.util
import os
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--peers', required=True, help='path of broad_peers.py (its loader and metric are used)')
    parser.add_argument('--data', required=True)
    parser.add_argument('--trial', required=True)
    parser.add_argument('--window', type=float, default=5.0, help='seconds per window (default 5)')
    parser.add_argument('outs', nargs='+', help='evaluate --out folders')
    args = parser.parse_args()
    if not (args.window > 0 and np.isfinite(args.window)):
        sys.exit(f'error: --window must be a positive number of seconds (e.g. 5); got {args.window}')
    if not os.path.isfile(args.peers):
        sys.exit(f'error: no broad_peers.py at {args.peers}: pass --peers ../shared/tools/broad_peers.py')
    spec = importlib.util.spec_from_file_location('broad_peers', args.peers)
    peers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peers)
    path = os.path.join(args.data, args.trial + '.csv')
    if not os.path.isfile(path):
        sys.exit(f'error: no trial {args.trial} in {args.data}')
    trial = peers.load_trial(path)
    estimates = {}
    for out in args.outs:
        file = os.path.join(out, '9d', args.trial + '.csv')
        if not os.path.isfile(file):
            sys.exit(f'error: no 9D estimate of {args.trial} in {out}: run motion-lab evaluate --out {out} on {args.data}')
        estimates[out] = np.loadtxt(file, delimiter=',', skiprows=1)
        if len(estimates[out]) != len(trial['t']):
            sys.exit(f'error: {file} has {len(estimates[out])} rows, the trial {len(trial["t"])}: was it run at another --rate?')
    estimates['VQF'] = peers.run_vqf(trial, True)[0]

    def errors(est):
        est = est / np.linalg.norm(est, axis=1, keepdims=True)
        ref = trial['ref'] / np.linalg.norm(trial['ref'], axis=1, keepdims=True)
        e = peers.qmul(est, ref * np.array([1, -1, -1, -1]))
        w, z = np.abs(e[:, 0]), e[:, 3] * np.sign(e[:, 0])
        total = np.degrees(2 * np.arccos(np.clip(w, 0, 1)))
        heading = np.degrees(2 * np.arctan(z / np.where(w == 0, 1e-300, w)))
        return total, heading

    scored = {name: errors(est) for name, est in estimates.items()}
    t, moving = trial['t'], trial['movement']
    print('9D total RMS over the moving samples (BROAD\'s score):')
    for name, (total, _) in scored.items():
        mask = moving & ~np.isnan(total)
        print(f'  {name}: {np.sqrt(np.mean(total[mask] ** 2)):.2f}')
    print(f'per {args.window:g} s window of the moving part: total RMS / mean signed heading error (degrees)')
    print('  from (s)  ' + '  '.join(f'{name[-14:]:>14}' for name in scored))
    start = 0.0
    while start < t[-1]:
        mask = (t >= start) & (t < start + args.window) & moving
        if mask.any():
            cells = []
            for total, heading in scored.values():
                cells.append(f'{np.sqrt(np.nanmean(total[mask] ** 2)):6.2f} /{np.nanmean(heading[mask]):+6.2f}')
            print(f'  {start:8.0f}  ' + '  '.join(f'{c:>14}' for c in cells))
        start += args.window


if __name__ == '__main__':
    main()
