import Foundation
import Testing
@testable import Motion

import MotionSimulation
@Suite("Board detection from the device-tree model")
struct BoardDetectionTests {
    /// Model strings as the boards report them (vendor images and mainline kernels).
    static let models: [(model: String, id: String)] = [
        ("Raspberry Pi 3 Model B Rev 1.2", "raspberry-pi-3b"),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", "raspberry-pi-3b"),
        ("Raspberry Pi 3 Model B+", "raspberry-pi-3b"),
        ("Raspberry Pi 4 Model B Rev 1.4", "raspberry-pi-4b"),
        ("Raspberry Pi 4 Model B", "raspberry-pi-4b"),
        ("Raspberry Pi 5 Model B Rev 1.0", "raspberry-pi-5"),
        ("Raspberry Pi Zero 2 W Rev 1.0", "raspberry-pi-zero-2w"),
        ("Raspberry Pi Compute Module 4 Rev 1.1", "raspberry-pi-cm4"),
        ("NVIDIA Jetson Nano Developer Kit", "jetson-nano"),
        ("NVIDIA Jetson Orin Nano Developer Kit", "jetson-orin-nano"),
        ("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super", "jetson-orin-nano"),
        ("TI AM335x BeagleBone Black", "beaglebone-black"),
        ("Xunlong Orange Pi 5", "orange-pi-5"),
        ("Orange Pi 5", "orange-pi-5"),
        ("Radxa ROCK 5 Model B", "radxa-rock-5b"),
        ("Radxa ROCK 5B", "radxa-rock-5b"),
    ]

    @Test("each board's model string detects that board", arguments: models.map { "\($0.model)|\($0.id)" })
    func detectsBoard(_ pair: String) throws {
        let parts = pair.split(separator: "|").map(String.init)
        #expect(BoardCatalog.detect(model: parts[0])?.id == parts[1])
        // As read from /proc/device-tree/model: NUL-terminated.
        #expect(BoardCatalog.detect(model: parts[0] + "\0")?.id == parts[1])
    }

    @Test("every built-in board with match entries is detected by at least one test model")
    func everyBoardCovered() {
        let covered = Set(Self.models.map(\.id))
        for board in BoardCatalog.builtIn.boards where !board.match.isEmpty {
            #expect(covered.contains(board.id), "no detection test for \(board.id)")
        }
        // Never detected by design: the simulator, and a HAT (the model string names the Pi, not the HAT).
        let undetectable = BoardCatalog.builtIn.boards.filter(\.match.isEmpty).map(\.id).sorted()
        #expect(undetectable == ["raspberry-pi-4b-sense-hat", BoardCatalog.simulatedID])
        #expect(BoardCatalog.detect(model: "Raspberry Pi 4 Model B Rev 1.4")?.id == "raspberry-pi-4b")
    }

    @Test("near misses and non-device-tree machines detect nothing", arguments: [
        "Raspberry Pi Compute Module 4S Rev 1.0", "Orange Pi 5 Plus", "Xunlong Orange Pi 5 Plus", "Radxa ROCK 5B+",
        "TI AM335x BeagleBone Black Wireless", "Raspberry Pi 500 Rev 1.0", "Raspberry Pi 4", "", "Simulated board",
    ])
    func nearMisses(_ model: String) {
        #expect(BoardCatalog.detect(model: model) == nil)
    }

    @Test("no model (not a device-tree machine) detects nothing")
    func noModel() {
        #expect(BoardCatalog.detect(model: nil) == nil)
    }

    @Test("no built-in match entry is claimed by two boards")
    func matchEntriesAreUnambiguous() {
        for board in BoardCatalog.builtIn.boards {
            for entry in board.match {
                let model = entry.hasSuffix("*") ? String(entry.dropLast()) + "1.0" : entry
                let claimants = BoardCatalog.builtIn.boards.filter { $0.matches(model: model) }.map(\.id)
                #expect(claimants == [board.id], "\(model) is matched by \(claimants)")
            }
        }
    }

    @Test("the model is read from /proc/device-tree/model, else /sys/firmware/devicetree/base/model")
    func readsModelFromFileSystem() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(BoardCatalog.readDeviceTreeModel(fileSystemRoot: root.path) == nil)
        #expect(BoardCatalog.builtIn.detectMachine(fileSystemRoot: root.path) == nil)
        let sys = root.appendingPathComponent("sys/firmware/devicetree/base")
        try FileManager.default.createDirectory(at: sys, withIntermediateDirectories: true)
        try Data("Raspberry Pi 5 Model B Rev 1.0\0".utf8).write(to: sys.appendingPathComponent("model"))
        #expect(BoardCatalog.readDeviceTreeModel(fileSystemRoot: root.path) == "Raspberry Pi 5 Model B Rev 1.0")
        #expect(BoardCatalog.builtIn.detectMachine(fileSystemRoot: root.path)?.id == "raspberry-pi-5")
        let proc = root.appendingPathComponent("proc/device-tree")
        try FileManager.default.createDirectory(at: proc, withIntermediateDirectories: true)
        try Data("TI AM335x BeagleBone Black\0".utf8).write(to: proc.appendingPathComponent("model"))
        #expect(BoardCatalog.readDeviceTreeModel(fileSystemRoot: root.path) == "TI AM335x BeagleBone Black")
    }
}
