import BroadData
import Foundation
import Fusion

/// Where a trial's reference puts north, against the magnetometer (`motion-lab evaluate
/// --reference-heading`).
///
/// Two headings of the field, both in the reference's East-North-Up frame over the trial's
/// opening rest (valid reference, no movement yet): the raw reading's, and the reading's with
/// the offset `b` that the reference itself implies removed. That offset comes from the moving
/// part: the readings are m = Rᵀh + b with R the reference attitude (sensor → ENU), h the
/// world's field and b the sensor's offset, both unknown and constant; linear least squares in
/// (h, b), solved by alternating the two means (h = mean R(m − b), b = mean(m − Rᵀh)), which
/// converges when the trial turns about more than one axis.
///
/// A reference whose north is magnetic north gives the corrected field a heading near 0; one
/// whose north was taken from the raw magnetometer at rest gives the raw field a heading near 0.
/// In the second case an estimator that removes `b` (a background calibration) is charged the
/// corrected heading on that trial, however right `b` is.
struct ReferenceHeading {
    /// Degrees east of the reference's north: the raw field at rest, and the field with `offset` removed.
    var raw: Double
    var corrected: Double
    /// µT, sensor axes: the offset the reference implies over the moving samples.
    var offset: SIMD3<Double>
    /// µT: the RMS of what m = Rᵀh + b leaves (noise, soft iron, fields that vary from place to place).
    var residual: Double
    /// µT: the same with b = 0 (the raw readings against the reference): little more than
    /// ``residual`` where the reference is met as well without an offset.
    var rawResidual: Double
    /// µT: the mean strength of the raw field at the opening rest and over the moving samples. Where
    /// they differ, the board moved to where the field is not what it was at rest (a place, not an
    /// offset: the field-strength constraint of a background calibration sees it as either).
    var restStrength: Double
    var movingStrength: Double

    init?(_ trial: BroadTrial) {
        var rest: [(SIMD3<Double>, Quaternion)] = [], moving: [(SIMD3<Double>, Quaternion)] = []
        var started = false
        // Every third sample: BROAD's magnetometer repeats its readings over about three.
        for k in stride(from: 0, to: trial.count, by: 3) {
            started = started || trial.movement[k]
            guard let attitude = ReferenceLag.quaternion(trial.reference[k]) else { continue }
            let reading = trial.magnetometer[k]
            guard reading * 0 == .zero else { continue }
            if trial.movement[k] { moving.append((reading, attitude)) } else if !started { rest.append((reading, attitude)) }
        }
        guard rest.count >= 10, moving.count >= 100 else { return nil }
        var offset = SIMD3<Double>.zero, world = SIMD3<Double>.zero
        let n = Double(moving.count)
        for _ in 0..<400 {
            world = moving.reduce(.zero) { $0 + $1.1.rotate($1.0 - offset) } / n
            offset = moving.reduce(.zero) { $0 + ($1.0 - $1.1.inverseRotate(world)) } / n
        }
        residual = Self.residual(moving, world: world, offset: offset)
        let rawWorld = moving.reduce(.zero) { $0 + $1.1.rotate($1.0) } / n
        rawResidual = Self.residual(moving, world: rawWorld, offset: .zero)
        guard residual.isFinite, rawResidual.isFinite else { return nil }
        self.offset = offset
        func meanStrength(_ samples: [(SIMD3<Double>, Quaternion)]) -> Double {
            samples.reduce(0.0) { $0 + ($1.0 * $1.0).sum().squareRoot() } / Double(samples.count)
        }
        restStrength = meanStrength(rest)
        movingStrength = meanStrength(moving)
        raw = Self.heading(rest.reduce(.zero) { $0 + $1.1.rotate($1.0) })
        corrected = Self.heading(rest.reduce(.zero) { $0 + $1.1.rotate($1.0 - offset) })
    }

    /// RMS per axis, µT, of m − Rᵀh − b over `samples`.
    private static func residual(_ samples: [(SIMD3<Double>, Quaternion)], world: SIMD3<Double>, offset: SIMD3<Double>) -> Double {
        let squares = samples.reduce(0.0) { sum, sample in
            let miss = sample.0 - sample.1.inverseRotate(world) - offset
            return sum + (miss * miss).sum()
        }
        return (squares / (3 * Double(samples.count))).squareRoot()
    }

    /// Degrees east of north of an ENU vector's horizontal part.
    private static func heading(_ v: SIMD3<Double>) -> Double {
        atan2(v.x, v.y) * 180 / .pi
    }

    /// Prints each trial's two headings, the offset, the fit's residual and the field's strength.
    static func report(_ loaded: [(entry: BroadIndexEntry, trial: BroadTrial)]) {
        print("")
        print("north in the reference (--reference-heading): the heading of the field at the opening rest, in the")
        print("reference's frame, raw and with the offset the reference implies (fitted over the moving samples) removed")
        print("trial                                          raw °  corrected °  offset µT (x, y, z)        residual µT  without it"
            + "  |m| µT at rest  moving")
        for (entry, trial) in loaded {
            guard let measured = ReferenceHeading(trial) else {
                print(EvaluateCommand.pad(entry.trial, 46) + "no opening rest or too little motion with a reference")
                continue
            }
            let b = measured.offset
            print(EvaluateCommand.pad(entry.trial, 46) + EvaluateCommand.number(measured.raw, 6)
                + EvaluateCommand.number(measured.corrected, 13)
                + "  (" + [b.x, b.y, b.z].map { String(format: "%6.2f", $0) }.joined(separator: ", ") + ")"
                + EvaluateCommand.number(measured.residual, 13) + EvaluateCommand.number(measured.rawResidual, 12)
                + EvaluateCommand.number(measured.restStrength, 16) + EvaluateCommand.number(measured.movingStrength, 8))
        }
    }
}
