import ArgumentParser
import Foundation
import Testing
@testable import motionctl

@Suite struct EvaluateCommandTests {
    @Test func missingDataFolderSaysWhereToFindIt() {
        #expect {
            _ = try EvaluateCommand.parse(["--data", "/nonexistent/broad", "--out", NSTemporaryDirectory()])
        } throws: { error in
            EvaluateCommand.message(for: error) == "no BROAD data at /nonexistent/broad: pass --data ../shared/data/broad"
        }
    }

    @Test func runsAndWritesOneRowPerSample() throws {
        // A two-second synthetic trial at rest, flat, x east: estimates must be near the identity.
        let folder = NSTemporaryDirectory() + "broad-eval-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,opt_w,opt_x,opt_y,opt_z,movement\n"
        for i in 0..<200 { text += "\(Double(i) * 0.01),0,0,0,0,0,9.81,0,20,-44,1,0,0,0,1\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/01_undisturbed_test.csv"))
        let out = folder + "/out"
        let command = try EvaluateCommand.parse(["--data", folder, "--out", out])
        try command.run()
        let rows = try String(contentsOfFile: out + "/9d/01_undisturbed_test.csv", encoding: .utf8)
            .split(separator: "\n")
        #expect(rows.count == 201)
        #expect(rows.first == "qw,qx,qy,qz")
        let last = rows.last?.split(separator: ",").compactMap { Double($0) } ?? []
        #expect(last.count == 4 && abs(abs(last[0]) - 1) < 1e-6)
    }
}
