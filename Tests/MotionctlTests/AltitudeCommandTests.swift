import Foundation
import TestSupport
import Testing

/// `motionctl altitude` through the built binary on the simulated stairs: one row a second, the
/// relative altitude at the top landing 9 m, three floors up, and the altitude above sea level
/// from a reference altitude.
@Suite struct AltitudeCommandTests {
    @Test func theStairsThreeFloorsUp() throws {
        let result = try BoardsCommandTests.run(["altitude", "--scenario", "stairs", "--reference-altitude", "35", "--duration", "72"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "time_s relative_m pressure_hPa floors_up floors_down altitude_m accuracy_m")
        let rows = lines.dropFirst().map { $0.split(separator: " ").map(String.init) }
        #expect(rows.count == 71, "one row a second: \(rows.count)")
        // The top landing: 6 s to start, three storeys of 21 s, 4 s of its 6 s landing.
        let top = try #require(rows.first { (Double($0[0]) ?? 0) >= 70 })
        #expect(abs((Double(top[1]) ?? 0) - 9) < 0.5, "\(top)")
        #expect(top[3] == "3" && top[4] == "0", "\(top)")
        #expect(abs((Double(top[5]) ?? 0) - 44) < 0.5 && (Double(top[6]) ?? 99) < 1.1, "\(top)")
    }

    /// Every emulated barometer, put on the simulated board with `--barometer`: `probe` names it at
    /// its address, and `altitude` reads the lift's five storeys (15 m) through its driver.
    @Test(arguments: [("bmp280", "0x76"), ("bme280", "0x76"), ("bmp388", "0x76"), ("bmp390", "0x76"), ("dps310", "0x77"),
                      ("ms5611", "0x77"), ("lps25h", "0x5C"), ("lps22hb", "0x5C"), ("lps22hh", "0x5C")])
    func everyBarometerIsFoundAndRead(chip: String, address: String) throws {
        let probe = try BoardsCommandTests.run(["probe", "--simulated", "--barometer", chip])
        #expect(probe.status == 0, "\(probe.error)")
        #expect(probe.output.contains("\(address)  \(chip.uppercased())"), "\(probe.output)")
        let result = try BoardsCommandTests.run(["altitude", "--barometer", chip, "--scenario", "lift", "--duration", "30"])
        #expect(result.status == 0, "\(result.error)")
        let rows = result.output.split(separator: "\n").dropFirst().map { $0.split(separator: " ").map(String.init) }
        // At the top, the doors open (10 s still, up at 1 m/s for 15 s, then 10 s at the top).
        let top = try #require(rows.last)
        #expect(abs((Double(top[1]) ?? 0) - 15) < 0.3 && top[3] == "5", "\(chip): \(top)")
    }

    @Test func aReferenceIsOneOrTheOther() throws {
        let result = try BoardsCommandTests.run(["altitude", "--simulated", "--sea-level-pressure", "1013", "--reference-altitude", "35"])
        #expect(result.status != 0)
        #expect(result.error.contains("not both"), "\(result.error)")
        let range = try BoardsCommandTests.run(["altitude", "--simulated", "--sea-level-pressure", "10130"])
        #expect(range.status != 0 && range.error.contains("--sea-level-pressure"), "\(range.error)")
    }
}
