import Fusion

/// Motions of boards fixed to machines rather than held: the background magnetometer calibration
/// was designed on a hand's handling, and these are the motions it was not shaped on (issue #39):
/// a vehicle that turns (yaw alone, nearly level), a robot arm repeating its programmed moves (a
/// few directions, again and again), a pendulum (one axis). The truth is the script's, as for
/// every scenario; none exceeds the rates of ``Scenario/all``'s bound.
extension Scenario {
    private static let machineDegree = Double.pi / 180

    /// The route of ``vehicleTurning``: each turn's yaw change (degrees, positive
    /// counterclockwise seen from above), the seconds it takes, and the seconds driven straight
    /// after it, with the lean (roll, pitch, degrees) the road gives the board there.
    static let vehicleRoute: [(turn: Double, over: Double, straight: Double, roll: Double, pitch: Double)] = [
        (90, 4, 6, 1.5, -1), (-90, 5, 8, -2, 0.5), (45, 3, 5, 1, 2), (120, 6, 4, 2.5, -1.5), (-150, 7, 6, -2, 1),
        (360, 14, 5, 3, 0), (90, 4, 5, -1, -2), (-45, 3, 7, 0.5, 1.5), (160, 8, 5, 2, -0.5), (-120, 6, 6, -1.5, 1),
    ]

    /// A board mounted flat in a vehicle: driven straight, turned at a crossing or a roundabout
    /// (one whole turn), straight again; the road leans it by a few degrees. Its magnetometer sees
    /// the field turn about the vertical alone (with a few degrees of lean): the offset along
    /// the vertical is not seen turning.
    package static let vehicleTurning = Scenario(
        name: "vehicle-turning",
        summary: "mounted flat in a vehicle: straight stretches and turns (90°, 45°, 120°, 150°, a roundabout's 360°), leaning a few degrees (108 s)",
        script: MotionScript([.rest(2)] + vehicleSegments() + [.rest(2)]))

    private static func vehicleSegments() -> [MotionSegment] {
        var yaw = 0.0
        var segments: [MotionSegment] = []
        for leg in vehicleRoute {
            // `rotate` turns rate · (duration − ramp): the turn over `over` seconds plus the ramp.
            segments.append(.rotate(about: SIMD3(0, 0, 1), rate: leg.turn * machineDegree / leg.over, for: leg.over + 0.5))
            yaw += leg.turn
            segments.append(.turn(to: Quaternion(roll: leg.roll * machineDegree, pitch: leg.pitch * machineDegree, yaw: yaw * machineDegree),
                                  over: 1.5, thenHold: leg.straight - 1.5))
        }
        return segments
    }

    /// The poses (roll, pitch, yaw in degrees) ``robotArm`` cycles through.
    static let robotArmPoses: [(roll: Double, pitch: Double, yaw: Double)] = [
        (0, 0, 0), (0, -60, 45), (70, -30, 100), (10, 40, -40), (-45, 10, 150),
    ]

    /// A board on a robot arm's tool: the same programmed cycle of five poses ten times, each move
    /// 1.8 s (minimum jerk), 0.5 s at each pose. Few directions, each met again and again.
    package static let robotArm = Scenario(
        name: "robot-arm",
        summary: "on a robot arm's tool: a programmed cycle through five poses (1.8 s moves, 0.5 s stops), repeated ten times (117 s)",
        script: MotionScript([.rest(2)] + (0..<10).flatMap { (_: Int) -> [MotionSegment] in
            robotArmPoses.dropFirst().map { pose -> MotionSegment in
                .turn(to: Quaternion(roll: pose.roll * machineDegree, pitch: pose.pitch * machineDegree, yaw: pose.yaw * machineDegree),
                      over: 1.8, thenHold: 0.5)
            } + [.turn(to: .identity, over: 1.8, thenHold: 0.5)]
        }))

    /// A board on a pendulum: flat, its top edge 25° east of north, swinging about its own x axis
    /// (horizontal), a swing each way a second, the amplitude decaying from 35° to 15° over 100
    /// swings. One axis of rotation: the offset along it is not seen turning.
    package static let pendulum = Scenario(
        name: "pendulum",
        summary: "flat on a pendulum, swinging about one horizontal axis, 1 s each way, the amplitude decaying from 35° to 15° (102 s)",
        script: MotionScript([.turn(to: Quaternion.aboutZ(25 * machineDegree), over: 1, thenHold: 1)] + (0..<100).map { swing in
            let amplitude = 35 - 20 * Double(swing) / 99
            return .turn(to: Quaternion(roll: 0, pitch: (swing % 2 == 0 ? amplitude : -amplitude) * machineDegree, yaw: 25 * machineDegree),
                         over: 1)
        }))
}
