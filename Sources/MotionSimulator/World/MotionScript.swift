import Foundation
import Fusion

/// The true rigid-body motion at one instant, before gravity and fields are added.
struct Kinematics: Sendable {
    /// Device → world (ENU).
    var attitude: Quaternion
    /// rad/s, device frame.
    var angularRate: SIMD3<Double>
    /// Metres, world frame.
    var position: SIMD3<Double>
    /// m/s, world frame.
    var velocity: SIMD3<Double>
    /// m/s², world frame.
    var acceleration: SIMD3<Double>

    static func still(_ attitude: Quaternion, _ position: SIMD3<Double>) -> Kinematics {
        Kinematics(attitude: attitude, angularRate: .zero, position: position, velocity: .zero, acceleration: .zero)
    }
}

/// A sequence of ``MotionSegment``s played one after another from a starting attitude and
/// position. Attitude, angular rate, velocity and acceleration are continuous across segments;
/// angular rate is the exact derivative of the attitude, acceleration the exact second derivative
/// of the position (all analytic, so any time can be evaluated directly and cheaply).
package struct MotionScript: Sendable {
    /// What happens after the last segment.
    package enum EndBehavior: Sendable {
        /// Rest at the final attitude and position forever.
        case hold
        /// Start again. If the script does not end where it began, a smooth return (minimum-jerk,
        /// `returnDuration` seconds) to the starting attitude and position is appended first.
        case loop
    }

    package let segments: [MotionSegment]
    package let endBehavior: EndBehavior
    /// Seconds, including any return appended for looping.
    package let duration: Double
    /// Where the script starts.
    package let initialAttitude: Quaternion
    package let initialPosition: SIMD3<Double>

    private let starts: [Double]
    private let plans: [Plan]

    package init(
        _ segments: [MotionSegment], initialAttitude: Quaternion = .identity, initialPosition: SIMD3<Double> = .zero,
        endBehavior: EndBehavior = .hold, returnDuration: Double = 3
    ) {
        var plans: [Plan] = []
        var starts: [Double] = []
        var time = 0.0
        var pose = Kinematics.still(initialAttitude.normalized, initialPosition)
        for segment in segments where segment.duration > 0 {
            let plan = Plan(segment, from: pose)
            starts.append(time)
            plans.append(plan)
            time += segment.duration
            pose = plan.kinematics(at: segment.duration)
        }
        if endBehavior == .loop,
           pose.attitude.angle(to: initialAttitude) > 1e-9 || length(pose.position - initialPosition) > 1e-9 {
            let back = MotionSegment.move(to: initialPosition, attitude: initialAttitude, over: returnDuration)
            starts.append(time)
            plans.append(Plan(back, from: pose))
            time += back.duration
        }
        if plans.isEmpty {
            starts = [0]
            plans = [Plan(.rest(0), from: pose)]
        }
        self.segments = segments
        self.endBehavior = endBehavior
        self.duration = time
        self.initialAttitude = initialAttitude.normalized
        self.initialPosition = initialPosition
        self.starts = starts
        self.plans = plans
    }

    /// Start time (script seconds) of each played segment, including any appended return.
    package var segmentStartTimes: [Double] { starts }

    /// The motion at `time` seconds into the script (before 0, or not a finite number: the
    /// starting pose).
    func kinematics(at time: Double) -> Kinematics {
        guard time.isFinite else { return plans[0].kinematics(at: 0) }
        var t = time
        if endBehavior == .loop, duration > 0, t >= duration {
            t = t.truncatingRemainder(dividingBy: duration)
        }
        if t <= 0 { return plans[0].kinematics(at: 0) }
        // Last segment starting at or before t.
        var low = 0, high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= t { low = mid } else { high = mid - 1 }
        }
        return plans[low].kinematics(at: t - starts[low])
    }
}

/// A segment resolved against its starting pose, with everything precomputed.
private struct Plan: Sendable {
    let duration: Double
    let startAttitude: Quaternion
    let startPosition: SIMD3<Double>
    let body: Body

    enum Body: Sendable {
        case rest
        case reach(axis: SIMD3<Double>, angle: Double, displacement: SIMD3<Double>, transition: Double)
        /// `rateAxis`: the rotation axis in the device frame (constant for both frames).
        case rotate(axis: SIMD3<Double>, rateAxis: SIMD3<Double>, inWorld: Bool, rate: Double, clock: EasedClock)
        case tumble(TumbleShape, EasedClock)
        case figureEight(turnsAboutX: Double, turnsAboutZ: Double, clock: EasedClock)
        case oscillate(worldAxis: SIMD3<Double>, amplitude: Double, angularFrequency: Double, clock: EasedClock)
        case taps(worldAxis: SIMD3<Double>, depth: Double, width: Double, period: Double, count: Int)
        case walk(forward: SIMD3<Double>, left: SIMD3<Double>, speed: Double, stepAngularFrequency: Double, clock: EasedClock)
        case gait(GaitShape)
    }

    init(_ segment: MotionSegment, from start: Kinematics) {
        duration = segment.duration
        startAttitude = start.attitude
        startPosition = start.position
        let q0 = start.attitude
        switch segment.kind {
        case .rest:
            body = .rest
        case let .reach(attitude, target, transition):
            let relative = q0.conjugate * (attitude ?? q0)
            let (axis, angle) = relative.axisAngle
            let displacement: SIMD3<Double> = switch target {
            case .keep: .zero
            case let .offset(offset): offset
            case let .absolute(position): position - start.position
            }
            body = .reach(axis: axis, angle: angle, displacement: displacement, transition: max(1e-9, min(transition, duration)))
        case let .rotate(axis, inWorld, rate, ramp):
            body = .rotate(axis: axis, rateAxis: inWorld ? q0.inverseRotate(axis) : axis, inWorld: inWorld, rate: rate,
                           clock: EasedClock(duration: duration, ramp: ramp))
        case let .tumble(shape):
            body = .tumble(shape, EasedClock(duration: duration, ramp: min(1, duration / 4)))
        case let .figureEight(turnsAboutX, turnsAboutZ, ramp):
            body = .figureEight(turnsAboutX: Double(turnsAboutX), turnsAboutZ: Double(turnsAboutZ),
                                clock: EasedClock(duration: duration, ramp: ramp))
        case let .oscillate(axis, amplitude, frequency, ramp):
            body = .oscillate(worldAxis: q0.rotate(axis), amplitude: amplitude, angularFrequency: 2 * .pi * frequency,
                              clock: EasedClock(duration: duration, ramp: ramp))
        case let .taps(axis, depth, width, period):
            let count = duration >= width ? Int(((duration - width) / period).rounded(.down)) + 1 : 0
            body = .taps(worldAxis: q0.rotate(axis), depth: depth, width: width, period: period, count: count)
        case let .walk(heading, speed, stepFrequency, ramp):
            let forward = SIMD3(sin(heading), cos(heading), 0)
            body = .walk(forward: forward, left: SIMD3(-forward.y, forward.x, 0), speed: speed,
                         stepAngularFrequency: 2 * .pi * stepFrequency, clock: EasedClock(duration: duration, ramp: ramp))
        case let .gait(shape):
            body = .gait(shape)
        }
    }

    /// Displacement, velocity and acceleration of `amplitude·envelope(τ)·sin(ω·τ)`.
    @inline(__always)
    private static func wave(
        amplitude: Double, angularFrequency w: Double, _ tau: Double,
        envelope e: (value: Double, rate: Double, acceleration: Double)
    ) -> SIMD3<Double> {
        let s = sin(w * tau), c = cos(w * tau)
        return amplitude * SIMD3(
            e.value * s,
            e.rate * s + e.value * w * c,
            e.acceleration * s + 2 * e.rate * w * c - e.value * w * w * s
        )
    }

    func kinematics(at tau: Double) -> Kinematics {
        let q0 = startAttitude, p0 = startPosition
        switch body {
        case .rest:
            return .still(q0, p0)

        case let .reach(axis, angle, displacement, transition):
            let s = smootherstep(tau / transition)
            return Kinematics(
                attitude: q0 * Quaternion(axis: axis, angle: angle * s.value),
                angularRate: axis * (angle * s.rate / transition),
                position: p0 + displacement * s.value,
                velocity: displacement * (s.rate / transition),
                acceleration: displacement * (s.acceleration / (transition * transition)))

        case let .rotate(axis, rateAxis, inWorld, rate, clock):
            let u = clock.at(tau)
            let turn = Quaternion(axis: axis, angle: rate * u.value)
            return Kinematics(
                attitude: inWorld ? turn * q0 : q0 * turn, angularRate: rateAxis * (rate * u.rate),
                position: p0, velocity: .zero, acceleration: .zero)

        case let .tumble(shape, clock):
            // q = q0 · Rx(α) · Ry(β) · Rz(γ); body rate = Rz⁻¹(Ry⁻¹(α′ x̂) + β′ ŷ) + γ′ ẑ.
            let u = clock.at(tau)
            let (angle, angleRate) = shape.angles(u.value)
            let rate = angleRate * u.rate
            let qx = Quaternion.aboutX(angle.x), qy = Quaternion.aboutY(angle.y), qz = Quaternion.aboutZ(angle.z)
            let inner = qy.inverseRotate(SIMD3(rate.x, 0, 0)) + SIMD3(0, rate.y, 0)
            return Kinematics(
                attitude: q0 * qx * qy * qz, angularRate: qz.inverseRotate(inner) + SIMD3(0, 0, rate.z),
                position: p0, velocity: .zero, acceleration: .zero)

        case let .figureEight(turnsAboutX, turnsAboutZ, clock):
            // q = q0 · Rx(b) · Rz(a); body rate = Rz(a)⁻¹ (b′ x̂) + a′ ẑ = (b′ cos a, −b′ sin a, a′).
            let u = clock.at(tau)
            let progress = clock.total > 0 ? u.value / clock.total : 1
            let progressRate = clock.total > 0 ? u.rate / clock.total : 0
            let b = 2 * .pi * turnsAboutX * progress, bRate = 2 * .pi * turnsAboutX * progressRate
            let a = 2 * .pi * turnsAboutZ * progress, aRate = 2 * .pi * turnsAboutZ * progressRate
            return Kinematics(
                attitude: q0 * .aboutX(b) * .aboutZ(a), angularRate: SIMD3(bRate * cos(a), -bRate * sin(a), aRate),
                position: p0, velocity: .zero, acceleration: .zero)

        case let .oscillate(worldAxis, amplitude, w, clock):
            let motion = Self.wave(amplitude: amplitude, angularFrequency: w, tau, envelope: clock.envelope(tau))
            return Kinematics(
                attitude: q0, angularRate: .zero, position: p0 + worldAxis * motion.x,
                velocity: worldAxis * motion.y, acceleration: worldAxis * motion.z)

        case let .taps(worldAxis, depth, width, period, count):
            let index = Int((tau / period).rounded(.down))
            let local = tau - Double(index) * period
            guard index >= 0, index < count, local < width else { return .still(q0, p0) }
            // Bump sin⁴(πx), x = local/width: zero value, slope and curvature at both ends.
            let x = local / width
            let s = sin(.pi * x), c = cos(.pi * x)
            let bump = s * s * s * s
            let bumpRate = 4 * .pi * s * s * s * c / width
            let bumpAcceleration = 2 * .pi * .pi * (cos(2 * .pi * x) - cos(4 * .pi * x)) / (width * width)
            return Kinematics(
                attitude: q0, angularRate: .zero, position: p0 + worldAxis * (depth * bump),
                velocity: worldAxis * (depth * bumpRate), acceleration: worldAxis * (depth * bumpAcceleration))

        case let .walk(forward, left, speed, w, clock):
            let u = clock.at(tau)
            let envelope = clock.envelope(tau)
            let bob = Self.wave(amplitude: 0.015, angularFrequency: w, tau, envelope: envelope)
            let sway = Self.wave(amplitude: 0.01, angularFrequency: w / 2, tau, envelope: envelope)
            let up = SIMD3<Double>(0, 0, 1)
            return Kinematics(
                attitude: q0, angularRate: .zero,
                position: p0 + forward * (speed * u.value) + up * bob.x + left * sway.x,
                velocity: forward * (speed * u.rate) + up * bob.y + left * sway.y,
                acceleration: forward * (speed * u.acceleration) + up * bob.z + left * sway.z)

        case let .gait(shape):
            return shape.kinematics(at: tau, attitude: q0, position: p0)
        }
    }
}
