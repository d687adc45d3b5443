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
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "icm42688", "--count", "50"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(lines.first)
        let columns = try ["acc_x_g", "acc_y_g", "acc_z_g"].map { try #require(header.firstIndex(of: $0)) }
        let rows = lines.dropFirst()
        #expect(rows.count == 50)
        for row in rows {
            let magnitude = columns.map { Double(row[$0]) ?? .nan }.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(row)")
        }
    }
}
