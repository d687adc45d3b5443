import Fusion

/// The scenarios with a height to measure: stairs, a lift, a hill, and a board at rest while the
/// weather moves the pressure. Each knows the true altitude at every instant (``World/altitude(at:)``);
/// the stairs also list their landings, where the tests compare.
extension Scenario {
    /// The height of one storey in ``stairs`` and ``lift``, m (a residential storey: about 3 m).
    package static let storeyHeight = 3.0

    /// One flight: `rise` metres up (down, negative) over `duration` seconds while walking
    /// `northward` metres north (south, negative), then a landing of `landing` seconds.
    private static func flight(rise: Double, northward: Double, over duration: Double, landing: Double) -> [MotionSegment] {
        [.translate(by: SIMD3(0, northward, rise), over: duration), .rest(landing)]
    }

    /// Three storeys up, a pause at the top, and down again: each storey two flights of 1.5 m
    /// rise and 2.4 m run in 6 s with a 3 s half-landing between, a 6 s landing at each floor.
    /// The board is held tilted in portrait (40° up from flat) and does not turn: the second
    /// flight of each storey runs back the way the first came.
    private static let stairsScript: [MotionSegment] = {
        let held = DeviceFace.portraitTilt(40 * .pi / 180)
        var segments: [MotionSegment] = [.turn(to: held, over: 2, thenHold: 4)]
        for direction in [1.0, -1.0] {
            for _ in 0..<3 {
                segments += flight(rise: direction * storeyHeight / 2, northward: 2.4, over: 6, landing: 3)
                segments += flight(rise: direction * storeyHeight / 2, northward: -2.4, over: 6, landing: 6)
            }
            segments.append(.rest(4))
        }
        return segments
    }()

    package static let stairs = Scenario(
        name: "stairs",
        summary: "held in portrait, walks up three storeys (3 m each, two flights of 1.5 m with half-landings), pauses, walks down again",
        script: MotionScript(stairsScript), elevation: 35)

    /// The landings of ``stairs``: seconds into the script when the board has stood still on a
    /// floor's landing for 4 s, and the height above the start there (m): 3, 6, 9 going up, 6, 3,
    /// 0 going down.
    package static var stairsLandings: [(time: Double, height: Double)] {
        var time = 6.0, height = 0.0
        var landings: [(time: Double, height: Double)] = []
        for direction in [1.0, -1.0] {
            for _ in 0..<3 {
                time += 6 + 3 + 6
                height += direction * storeyHeight
                landings.append((time + 4, height))
                time += 6
            }
            time += 4
        }
        return landings
    }

    package static let lift = Scenario(
        name: "lift",
        summary: "face up in a lift: 10 s still, up five storeys (15 m) at 1 m/s, 10 s with doors open, back down, 10 s still",
        script: MotionScript([
            .rest(10), .translate(by: SIMD3(0, 0, 5 * storeyHeight), over: 18), .rest(10),
            .translate(by: SIMD3(0, 0, -5 * storeyHeight), over: 18), .rest(10),
        ]), elevation: 35)

    package static let hill = Scenario(
        name: "hill",
        summary: "carried face up up a hill, 60 m in 5 min (a 12 % path), 1 min at the top, and down again",
        script: MotionScript([
            .rest(10), .translate(by: SIMD3(0, 500, 60), over: 300), .rest(60),
            .translate(by: SIMD3(0, -500, -60), over: 300), .rest(10),
        ]), elevation: 120)

    /// The drift of ``weatherDrift``: −1.2 hPa an hour, a front arriving fast (a fall of 1 hPa in
    /// an hour is already a quick one).
    package static let weatherDriftRate = -120.0

    package static let weatherDrift = Scenario(
        name: "weather-drift",
        summary: "lies face up, still, for 10 min while the sea-level pressure falls 1.2 hPa an hour (0.2 hPa in all, about 1.7 m of apparent climb)",
        script: MotionScript([.rest(600)]), weather: Weather(seaLevelPressure: 101_800, drift: weatherDriftRate), elevation: 35)
}
