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

    /// Through the FIFO (the hub's reports) every sample is delivered or counted: a stretched
    /// clock misread now and then, or a hub reset in mid-stream, loses samples, and the sampler
    /// counts each, so delivered + dropped equals what the same run delivers without a fault.
    @Test func faultsThroughTheFIFOAreCounted() throws {
        func counts(_ faults: [String]) throws -> (sampled: Int, dropped: Int, error: String) {
            let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "bno08x", "--fifo", "--duration", "3"] + faults)
            #expect(result.status == 0, "\(result.error)")
            let line = try #require(result.error.split(separator: "\n").last { $0.contains("stream stopped: sampled") }, "\(result.error)")
            let numbers = line.split(separator: " ")
            let sampled = try #require(numbers.firstIndex(of: "sampled").flatMap { Int(numbers[$0 + 1].filter(\.isNumber)) })
            let dropped = line.contains("dropped 0,") ? 0
                : try #require(numbers.firstIndex(of: "dropped").flatMap { Int(numbers[$0 + 1]) })
            #expect(result.output.split(separator: "\n").count == sampled + 1)
            return (sampled, dropped, result.error)
        }
        let clean = try counts([])
        #expect(clean.dropped == 0 && clean.sampled >= 290)
        let stretched = try counts(["--faults", "imu:stretch*1@0.5/0.25"])
        #expect(stretched.dropped > 0 && stretched.sampled + stretched.dropped == clean.sampled, "\(stretched.error)")
        let reset = try counts(["--faults", "imu:reset@1"])
        #expect(reset.error.contains("device reset") && reset.error.contains("recovered 1"), "\(reset.error)")
        #expect(reset.sampled + reset.dropped == clean.sampled, "\(reset.error)")
    }
}
