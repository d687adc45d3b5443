import Foundation
import Fusion
import Motion
import MotionSimulation
import MotionTools
import Testing

/// Calibration guidance in the hand's terms: every missing direction of the magnetometer's map is
/// named as a part of the board to point along the field, through the board's mount; the six-face
/// mode reports the face the board lies on and how long it has been still.
@Suite struct CalibrationGuidanceTests {
    /// Readings (µT, chip axes) around a 50 µT sphere centred on `offset`, only in directions with z ≤ `maximumZ`.
    static func readings(offset: SIMD3<Double> = SIMD3(10, -20, 5), maximumZ: Double) -> [SIMD3<Double>] {
        var result: [SIMD3<Double>] = []
        for latitude in stride(from: -85.0, through: 85, by: 5) {
            for longitude in stride(from: -180.0, to: 180, by: 5) {
                let (la, lo) = (latitude * .pi / 180, longitude * .pi / 180)
                let direction = SIMD3(cos(la) * cos(lo), cos(la) * sin(lo), sin(la))
                if direction.z <= maximumZ { result.append(offset + 50 * direction) }
            }
        }
        return result
    }

    static func missingParts(_ lines: [String]) -> Set<String> {
        Set(lines.filter { $0.hasPrefix("  - ") }.map { String($0.dropFirst(4)) })
    }

    @Test func eachMissingDirectionIsABoardPartToPointAlongTheField() {
        var session = MagnetometerSession()
        session.add(Self.readings(maximumZ: 0.2))   // the +z half of the sphere never seen
        let progress = session.progress()
        #expect(progress.coverage.missingAxes == ["+z"])
        let lines = progress.guidance(magnetometerToDevice: .identity)
        #expect(lines.contains { $0.contains("point each of these along the Earth's field") })
        #expect(Self.missingParts(lines) == ["the front face (+z, components side)"])
        // The latest reading (latitude 10°, longitude 175°) points out of the left edge.
        #expect(lines.first?.hasPrefix("Now the left edge (-x) points along the Earth's field") == true)
    }

    @Test func theBoardsMountTurnsChipDirectionsIntoBoardParts() {
        var session = MagnetometerSession()
        session.add(Self.readings(maximumZ: 0.2))
        // Chip z is the device's −y (the chip stands on the board's bottom edge): the same missing
        // chip direction is the board's bottom edge.
        let mount = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 0, -1), SIMD3(0, 1, 0))
        let lines = session.progress().guidance(magnetometerToDevice: mount)
        #expect(Self.missingParts(lines) == ["the bottom edge (-y)"])
    }

    @Test func nothingMissingSaysSoAndEveryPartHasAPhrase() {
        var session = MagnetometerSession()
        session.add(Self.readings(maximumZ: 1))
        let lines = session.progress().guidance(magnetometerToDevice: .identity)
        #expect(Self.missingParts(lines).isEmpty)
        #expect(lines.last?.contains("Every edge and face") == true)
        for part in BoardPart.allCases {
            #expect(BoardPart.nearest(to: part.deviceAxis * 3)?.part == part)
            #expect(part.phrase.contains("edge") || part.phrase.contains("face"))
        }
        #expect(BoardPart.nearest(to: .zero) == nil)
    }

    @Test func theFieldStrengthWaitsForAFitThatMeansSomething() {
        var session = MagnetometerSession()
        session.add(Array(Self.readings(maximumZ: 1).prefix(40)))   // one thin band of directions
        #expect(session.progress().currentFieldStrength == nil)
        session.add(Self.readings(maximumZ: 1))
        let strength = session.progress().currentFieldStrength
        #expect(strength.map { abs($0 - 50) < 1 } == true)
    }

    @Test func sixFaceStatusReportsTheFaceAndStillness() {
        var session = SixFaceSession()
        let faceUp = SIMD3<Double>(0, 0, -1)   // Core Motion sign: lying face up reads z = −1 g
        _ = session.add(acceleration: Array(repeating: faceUp, count: 30), rotationRate: Array(repeating: .zero, count: 30))
        var status = session.status
        #expect(status.face == .faceUp && !status.isMeasured && status.isStill && status.stillReadings == 30)
        // Tilted 45°: on no face.
        let tilted = SIMD3<Double>(0, -0.707, -0.707)
        _ = session.add(acceleration: [tilted], rotationRate: [.zero])
        status = session.status
        #expect(status.face == nil && status.stillReadings == 1 && !status.isStill)
        // Back on the face for a whole window: measured, and then reported as measured already.
        let measured = session.add(acceleration: Array(repeating: faceUp, count: 100), rotationRate: Array(repeating: .zero, count: 100))
        #expect(measured == [.faceUp])
        _ = session.add(acceleration: [faceUp], rotationRate: [.zero])
        #expect(session.status.face == .faceUp && session.status.isMeasured)
        // Turning (rotation rate above the limit) is not still, however steady the acceleration.
        _ = session.add(acceleration: [], rotationRate: [SIMD3(1, 0, 0)])
        _ = session.add(acceleration: Array(repeating: faceUp, count: 5), rotationRate: [])
        #expect(session.status.stillReadings == 1)
    }
}
