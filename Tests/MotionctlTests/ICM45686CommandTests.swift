import Foundation
import Testing

/// The ICM-45686 on the simulated board through the built `motionctl`.
struct ICM45686CommandTests {
    @Test func probeListsTheICM45686() throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "icm45686"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("  0x68  ICM-45686"), "\(result.output)")
        #expect(lines.contains("  0x0D  QMC5883L"), "\(result.output)")
    }

    /// At rest every sample's acceleration is 1 g ± 2 % and its rotation rate under 0.05 rad/s.
    @Test func streamAtRestReadsOneG() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "icm45686", "--count", "50"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(lines.first)
        let columns = try ["acc_x_g", "acc_y_g", "acc_z_g"].map { try #require(header.firstIndex(of: $0)) }
        let rotation = try ["rot_x_rad_s", "rot_y_rad_s", "rot_z_rad_s"].map { try #require(header.firstIndex(of: $0)) }
        let rows = lines.dropFirst()
        #expect(rows.count == 50)
        for row in rows {
            let magnitude = columns.map { Double(row[$0]) ?? .nan }.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(row)")
            #expect(rotation.allSatisfy { abs(Double(row[$0]) ?? .nan) < 0.05 }, "\(row)")
        }
    }

    @Test func deviceMotionStreams() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "icm45686", "--device-motion", "--count", "20"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.split(separator: "\n").count == 21, "\(result.output)")
    }
}
