@testable import Fusion
import Testing

/// Floors counted from a relative altitude, with hysteresis.
@Suite struct FloorCounterTests {
    func counted(_ altitudes: [Double]) -> FloorCounter {
        var counter = FloorCounter()
        for altitude in altitudes { counter.update(relativeAltitude: altitude) }
        return counter
    }

    @Test func threeStoreysUpAndDownCountThreeEachWay() {
        let path = stride(from: 0.0, through: 9, by: 0.1).map { $0 } + stride(from: 9.0, through: 0, by: -0.1).map { $0 }
        let counter = counted(path)
        #expect(counter.ascended == 3 && counter.descended == 3)
    }

    /// Wandering about a threshold, and noise, count once: the next count needs three quarters
    /// of a storey beyond the floor counted.
    @Test func hoveringAtTheThresholdCountsOnce() {
        let counter = counted([0, 2.2, 2.3, 2.2, 2.3, 2.0, 2.4, 1.0, 2.4, 0.9])
        #expect(counter.ascended == 1 && counter.descended == 0)
        #expect(counter.floorAltitude == 3)
        #expect(counted([0, 2.3, 0.7]).descended == 1)
    }

    @Test func halfAStoreyAndBackCountsNothing() {
        let counter = counted([0, 1.5, 2.0, 0.2, -1.9, 0])
        #expect(counter.ascended == 0 && counter.descended == 0)
    }

    @Test func aJumpOfTwoStoreysCountsTwo() {
        #expect(counted([0, 6.1]).ascended == 2)
    }

    /// 8.3 m per hPa at sea level; the inverse functions agree.
    @Test func theBarometricFormulaIsTheStandardAtmospheres() {
        #expect(abs(BarometricFormula.pressure(altitude: 1000) - 89_874.6) < 0.5)
        #expect(abs(BarometricFormula.metresPerPascal(pressure: 101_325) * 100 - 8.32) < 0.01)
        let qnh = BarometricFormula.seaLevelPressure(pressure: 99_000, altitude: 200)
        #expect(abs(BarometricFormula.altitude(pressure: 99_000, seaLevelPressure: qnh) - 200) < 1e-6)
    }
}
