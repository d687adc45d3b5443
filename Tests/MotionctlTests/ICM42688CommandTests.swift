import Foundation
import Testing

/// The ICM-42688-P on the simulated board through the built `motionctl`.
struct ICM42688CommandTests {
    @Test func probeListsIt() throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "icm42688"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("  0x68  ICM-42688-P"), "\(result.output)")
        #expect(lines.contains("  0x0D  QMC5883L"), "\(result.output)")
    }

    /// At rest (the default scenario, with the datasheet's sensor errors) every sample's
    /// acceleration is 1 g ± 2 %.
    @Test func streamAtRestReadsOneG() throws {
        for row in try restingStream(imu: "icm42688") { #expect(abs(row.acceleration - 1) <= 0.02, "\(row)") }
    }
}

/// `motionctl stream --simulated --imu IMU --count N` at rest (the default scenario, with the
/// datasheet's sensor errors): each row's acceleration magnitude, g, and its rotation rate's
/// largest component, rad/s (NaN where a cell is not a number); the run must succeed and give N rows.
func restingStream(imu: String, count: Int = 50) throws -> [(acceleration: Double, rotation: Double)] {
    let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", imu, "--count", "\(count)"])
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let header = try #require(lines.first)
    let acceleration = try ["acc_x_g", "acc_y_g", "acc_z_g"].map { try #require(header.firstIndex(of: $0)) }
    let rotation = try ["rot_x_rad_s", "rot_y_rad_s", "rot_z_rad_s"].map { try #require(header.firstIndex(of: $0)) }
    let rows = lines.dropFirst()
    #expect(rows.count == count)
    return rows.map { row in
        let rates = rotation.map { abs(Double(row[$0]) ?? .nan) }
        return (acceleration.map { Double(row[$0]) ?? .nan }.reduce(0) { $0 + $1 * $1 }.squareRoot(),
                rates.contains(where: \.isNaN) ? .nan : rates.max() ?? .nan)
    }
}
