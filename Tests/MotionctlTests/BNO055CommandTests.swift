import Foundation
import Testing

/// The BNO055 on the simulated board through the built `motionctl`.
struct BNO055CommandTests {
    static func table(_ output: String) -> (header: [String], rows: [[String]]) {
        let lines = output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return (lines.first ?? [], Array(lines.dropFirst()))
    }

    @Test func probeListsIt() throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "bno055"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("  0x28  BNO055"), "\(result.output)")
    }

    /// At rest (the default scenario, with sensor errors) every sample's acceleration is 1 g ± 2 %.
    @Test func streamAtRestReadsOneG() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "bno055", "--count", "50"])
        #expect(result.status == 0, "\(result.error)")
        let (header, rows) = Self.table(result.output)
        let columns = try ["acc_x_g", "acc_y_g", "acc_z_g"].map { try #require(header.firstIndex(of: $0)) }
        #expect(rows.count == 50)
        for row in rows {
            let magnitude = columns.map { Double(row[$0]) ?? .nan }.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(row)")
        }
    }

    /// Device motion shows the chip's attitude next to ours; at rest, after the first second, the
    /// two agree within 2° (measured: 1.15° at most over 20 s).
    @Test func streamShowsTheChipsAttitudeNextToOurs() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "bno055", "--scenario", "rest", "--device-motion", "--duration", "5"])
        #expect(result.status == 0, "\(result.error)")
        let (header, rows) = Self.table(result.output)
        for column in ["qw", "chip_qw", "chip_qx", "chip_qy", "chip_qz", "chip_roll_rad", "chip_vs_ours_deg"] {
            #expect(header.contains(column), "\(header)")
        }
        let difference = try #require(header.firstIndex(of: "chip_vs_ours_deg"))
        #expect(rows.count == 500)
        for row in rows.dropFirst(100) { #expect((Double(row[difference]) ?? .nan) < 2, "\(row)") }
    }

    /// The self-test passes; the chip has no FIFO and no separate magnetometer self-test: skipped.
    @Test func selftestPassesAndSkipsTheFIFO() throws {
        let result = try BoardsCommandTests.run(["selftest", "--simulated", "--imu", "bno055"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("PASS  IMU self-test: BNO055: 4 of 4 axes within limits") }, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("SKIP  FIFO read: BNO055 has no FIFO") }, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("SKIP  magnetometer self-test") }, "\(result.output)")
    }

    /// `live` shows the chip's attitude under ours; a chip without fusion shows no such line.
    @Test func liveShowsTheChipsAttitude() throws {
        for (imu, shown) in [("bno055", true), ("lsm6dsox", false)] {
            let result = try BoardsCommandTests.run(["live", "--simulated", "--imu", imu, "--duration", "1.5"])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains("chip's own   roll") == shown, "\(imu): \(result.output)")
        }
    }

    @Test func chipWithoutFusionShowsNoChipColumns() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "lsm6dsox", "--device-motion", "--count", "3"])
        #expect(result.status == 0, "\(result.error)")
        #expect(!Self.table(result.output).header.contains { $0.hasPrefix("chip_") })
    }
}
