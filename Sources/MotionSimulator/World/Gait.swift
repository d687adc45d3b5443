import Foundation
import Fusion

/// Where the board is carried while its bearer walks.
package enum GaitCarry: Sendable, Equatable {
    /// Held in a hand in front of the body: it moves with the trunk, its attitude fixed.
    case hand
    /// In a front trouser pocket: it swings with the thigh about the hip, `pivot` metres above it,
    /// by up to `swing` radians forward and back over each stride (two steps).
    case pocket(swing: Double = 0.3, pivot: Double = 0.2)
}

/// A walk, a run or a flight of stairs with every step's time known: the ground truth a step
/// counter is measured against.
///
/// The body moves forward at `speed` (easing in and out over the first and last second) and, at
/// each step, dips `bounce` metres and comes back up (a `sin⁴` bump over the step: value, slope
/// and curvature zero at both ends, so the acceleration is continuous). The dip's lowest point,
/// the middle of the step, is the foot's impact: the vertical acceleration's peak,
/// 4π²·bounce/T² for a step of T seconds, and the step's time. It sways `sway` metres to the
/// side of the foot on the ground. On stairs each step also rises `rise` metres (a minimum-jerk
/// climb within the step). Step lengths vary by ±`jitter` (a fraction), seeded. The steps fill
/// the segment from its start; what is left of it after the last whole step is standing still
/// in place.
package struct GaitShape: Sendable {
    package let duration: Double
    package let speed: Double
    package let carry: GaitCarry
    package let bounce: Double
    package let sway: Double
    package let rise: Double
    /// Heading, radians clockwise from north.
    package let heading: Double
    /// Local start time of each step, and the end of the last (count + 1 entries).
    let boundaries: [Double]

    /// - Parameters:
    ///   - cadence: steps a second.
    ///   - duration: seconds of walking.
    package init(
        cadence: Double, for duration: Double, speed: Double = 1.4, carry: GaitCarry = .hand, bounce: Double = 0.03,
        sway: Double = 0.02, rise: Double = 0, heading: Double = 0, jitter: Double = 0.03, seed: UInt64 = 1
    ) {
        self.duration = max(0, duration)
        self.speed = speed
        self.carry = carry
        self.bounce = bounce
        self.sway = sway
        self.rise = rise
        self.heading = heading
        var random = SplitMix64(seed: seed)
        var boundaries = [0.0]
        let period = 1 / max(cadence, 0.1)
        while true {
            let length = period * (1 + jitter * (2 * random.nextUnit() - 1))
            guard let last = boundaries.last, last + length <= self.duration else { break }
            boundaries.append(last + length)
        }
        self.boundaries = boundaries
    }

    /// The steps' times (the impacts), seconds from the segment's start.
    package var stepTimes: [Double] {
        zip(boundaries, boundaries.dropFirst()).map { ($0 + $1) / 2 }
    }

    /// The step holding local time `tau`: its index, phase x in [0, 1) and length (s); nil outside the steps.
    private func step(at tau: Double) -> (index: Int, phase: Double, length: Double)? {
        guard boundaries.count > 1, tau > 0, let end = boundaries.last, tau < end else { return nil }
        var low = 0, high = boundaries.count - 2
        while low < high {
            let mid = (low + high + 1) / 2
            if boundaries[mid] <= tau { low = mid } else { high = mid - 1 }
        }
        let length = boundaries[low + 1] - boundaries[low]
        return (low, (tau - boundaries[low]) / length, length)
    }

    /// The thigh's phase in step `step` (π a step) and its first two derivatives in time. Steps
    /// differ in length, so the phase's rate at each boundary between steps is π over their
    /// mean length, reached by a quintic correction within each step (zero at its ends, with
    /// its curvature): the swing's velocity and acceleration, and so the board's, stay continuous.
    private func thighPhase(_ step: (index: Int, phase: Double, length: Double)) -> (value: Double, rate: Double, acceleration: Double) {
        let count = boundaries.count - 1
        func boundaryRate(_ boundary: Int) -> Double {
            let before = boundary > 0 ? boundaries[boundary] - boundaries[boundary - 1] : nil
            let after = boundary < count ? boundaries[boundary + 1] - boundaries[boundary] : nil
            let mean = ((before ?? after ?? 1) + (after ?? before ?? 1)) / 2
            return Double.pi / mean
        }
        let x = step.phase, length = step.length
        let start = boundaryRate(step.index) * length - Double.pi
        let end = boundaryRate(step.index + 1) * length - Double.pi
        // Quintic Hermite bases: zero value and curvature at both ends, slope 1 at one end.
        let x2 = x * x, x3 = x2 * x, x4 = x3 * x, x5 = x4 * x
        let correction: Double = start * (x - 6 * x3 + 8 * x4 - 3 * x5) + end * (-4 * x3 + 7 * x4 - 3 * x5)
        let correctionRate: Double = start * (1 - 18 * x2 + 32 * x3 - 15 * x4) + end * (-12 * x2 + 28 * x3 - 15 * x4)
        let correctionCurvature: Double = start * (-36 * x + 96 * x2 - 60 * x3) + end * (-24 * x + 84 * x2 - 60 * x3)
        return (Double.pi * (Double(step.index) + x) + correction, (Double.pi + correctionRate) / length, correctionCurvature / (length * length))
    }

    /// `sin⁴(πx)` over a step of `length` s: value, and derivatives with respect to time.
    private static func bump(_ x: Double, length: Double) -> SIMD3<Double> {
        let s = sin(.pi * x), c = cos(.pi * x)
        return SIMD3(
            s * s * s * s,
            4 * .pi * s * s * s * c / length,
            2 * .pi * .pi * (cos(2 * .pi * x) - cos(4 * .pi * x)) / (length * length))
    }

    func kinematics(at tau: Double, attitude q0: Quaternion, position p0: SIMD3<Double>) -> Kinematics {
        let forward = SIMD3(sin(heading), cos(heading), 0)
        let left = SIMD3(-forward.y, forward.x, 0)
        let up = SIMD3<Double>(0, 0, 1)
        let walkEnd = boundaries.last ?? 0
        let clock = EasedClock(duration: walkEnd, ramp: min(1, walkEnd / 4))
        let u = clock.at(min(tau, walkEnd))
        // [value, velocity, acceleration] along each world axis.
        let along = SIMD3(speed * u.value, speed * u.rate, speed * u.acceleration)
        var vertical = SIMD3<Double>.zero
        var side = SIMD3<Double>.zero
        var theta = SIMD3<Double>.zero
        if let step = step(at: tau) {
            let dip = Self.bump(step.phase, length: step.length)
            vertical -= bounce * dip
            let side1 = step.index % 2 == 0 ? 1.0 : -1.0
            side += sway * side1 * dip
            let climb = smootherstep(step.phase)
            let climbed: Double = Double(step.index) + climb.value
            vertical += rise * SIMD3(climbed, climb.rate / step.length, climb.acceleration / (step.length * step.length))
            if case .pocket(let swing, _) = carry {
                // The thigh: a sine over each stride, eased in and out with the walk.
                let envelope = clock.envelope(min(tau, walkEnd))
                let phase = thighPhase(step)
                let s = sin(phase.value), c = cos(phase.value)
                let e = envelope
                let swingRate: Double = e.rate * s + e.value * phase.rate * c
                let swingAcceleration: Double = e.acceleration * s + 2 * e.rate * phase.rate * c
                    + e.value * (phase.acceleration * c - phase.rate * phase.rate * s)
                theta = swing * SIMD3(e.value * s, swingRate, swingAcceleration)
            }
        } else if tau >= walkEnd {
            vertical.x = rise * Double(max(0, boundaries.count - 1))
        }
        var position = p0 + forward * along.x + up * vertical.x + left * side.x
        var velocity = forward * along.y + up * vertical.y + left * side.y
        var acceleration = forward * along.z + up * vertical.z + left * side.z
        var attitude = q0
        var angularRate = SIMD3<Double>.zero
        if case .pocket(_, let pivot) = carry {
            // Turned by θ about `left` at the hip, `pivot` above the board: the board moves on
            // an arc, r·(up·(1 − cos θ) − forward·sin θ) from where it hangs.
            let (t, rate, accel) = (theta.x, theta.y, theta.z)
            let (st, ct) = (sin(t), cos(t))
            position += pivot * (up * (1 - ct) - forward * st)
            velocity += pivot * rate * (up * st - forward * ct)
            let centripetal: Double = rate * rate
            let upward: Double = ct * centripetal + st * accel
            let backward: Double = ct * accel - st * centripetal
            acceleration += pivot * (up * upward - forward * backward)
            let turn = Quaternion(axis: left, angle: t)
            attitude = turn * q0
            angularRate = attitude.inverseRotate(left * rate)
        }
        return Kinematics(attitude: attitude, angularRate: angularRate, position: position, velocity: velocity, acceleration: acceleration)
    }
}

extension MotionScript {
    /// Every step's time in the script's gait segments (seconds from the script's start): the
    /// ground truth of its step count.
    package var stepTimes: [Double] {
        zip(segments.filter { $0.duration > 0 }, segmentStartTimes).flatMap { segment, start -> [Double] in
            guard case .gait(let shape) = segment.kind else { return [] }
            return shape.stepTimes.map { start + $0 }
        }
    }
}
