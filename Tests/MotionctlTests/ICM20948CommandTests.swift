import Foundation
import Testing

/// `motionctl` with the simulated ICM-20948 (and the AK09916 inside it): the built binary's output.
@Suite("motionctl with the ICM-20948")
struct ICM20948CommandTests {
    @Test("probe lists the ICM-20948 and the AK09916 behind its bypass")
    func probe() throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "icm20948"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(result.output)")   // with the simulated board's BMP280 at 0x76
        #expect(lines.dropFirst().first == "  0x68  ICM-20948")
        #expect(lines.last?.hasPrefix("  0x0C  AK09916 (inside the ICM-20948 at 0x68") == true, "\(result.output)")
    }

    @Test("stream at rest: gravity 1 g within 2 %, and a magnetic field")
    func streamAtRest() throws {
        let result = try BoardsCommandTests.run(["stream", "--scenario", "rest", "--imu", "icm20948", "--count", "50", "--no-barometer"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("timestamp_s,acc_x_g,acc_y_g,acc_z_g,") == true)
        let rows = lines.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(rows.count == 50)
        for row in rows {
            try #require(row.count == 10, "\(row)")
            let gravity = (row[1] * row[1] + row[2] * row[2] + row[3] * row[3]).squareRoot()
            #expect(abs(gravity - 1) <= 0.02, "\(row)")
        }
        // The magnetometer runs at 100 Hz: once its first measurement is in, every row has a field.
        let fields = rows.suffix(40).map { ($0[7] * $0[7] + $0[8] * $0[8] + $0[9] * $0[9]).squareRoot() }
        #expect(fields.allSatisfy { $0 > 10 && $0 < 100 }, "\(fields)")
    }
}
