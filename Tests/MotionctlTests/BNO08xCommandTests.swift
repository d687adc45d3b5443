import Foundation
import Testing

/// The BNO08x on the simulated board through the built `motionctl`.
struct BNO08xCommandTests {
    @Test func identifiedAtBothAddresses() throws {
        let usual = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "bno08x"])
        #expect(usual.status == 0, "\(usual.error)")
        #expect(usual.output.split(separator: "\n").map(String.init).contains("  0x4A  BNO08x"), "\(usual.output)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bno08x-board-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("my-hat.json")
        try Data(SelftestCommandTests.boardFile(chips: #""imuChip": "BNO085", "magnetometerChip": "BNO08x","#, imuAddress: "0x4B").utf8)
            .write(to: file)
        // probe takes no board file; selftest does, and identifies the chip first.
        let high = try BoardsCommandTests.run(["selftest", "--simulated", "--board", file.path])
        #expect(high.status == 0, "\(high.output)\(high.error)")
        for line in ["PASS  identity: BNO08x at 0x4B (id [0xF8])", "SKIP  IMU self-test: BNO08x has no self-test command",
                     "PASS  FIFO read: 11 frames, indices 0…10"] {
            #expect(high.output.contains(line), "\(line): \(high.output)")
        }
    }

    /// At rest every sample's acceleration is 1 g ± 2 %.
    @Test func streamAtRestReadsOneG() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "bno08x", "--count", "50"])
        #expect(result.status == 0, "\(result.error)")
        let (header, rows) = BNO055CommandTests.table(result.output)
        let columns = try ["acc_x_g", "acc_y_g", "acc_z_g"].map { try #require(header.firstIndex(of: $0)) }
        #expect(rows.count == 50)
        for row in rows {
            let magnitude = columns.map { Double(row[$0]) ?? .nan }.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(row)")
        }
    }

    /// Device motion shows the hub's attitude next to ours; at rest, after the first second, the
    /// two agree within 2°.
    @Test func streamShowsTheHubsAttitudeNextToOurs() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "bno08x", "--scenario", "rest", "--device-motion", "--duration", "5"])
        #expect(result.status == 0, "\(result.error)")
        let (header, rows) = BNO055CommandTests.table(result.output)
        let difference = try #require(header.firstIndex(of: "chip_vs_ours_deg"))
        #expect(rows.count == 500)
        for row in rows.dropFirst(100) { #expect((Double(row[difference]) ?? .nan) < 2, "\(row)") }
    }
}
