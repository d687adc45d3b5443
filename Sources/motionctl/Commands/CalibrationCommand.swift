import ArgumentParser
import CommandSupport
import Foundation
import Motion

/// `motionctl calibration show|clear`: the stored calibrations.
struct CalibrationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibration",
        abstract: "Show or remove the stored calibrations.",
        subcommands: [Show.self, Clear.self, StressSave.self, StressUpdate.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every stored calibration: its file and key figures.")

        func run() throws {
            let store = CalibrationStore.userDefault()
            let records: [(path: String, record: CalibrationRecord)]
            do {
                records = try store.all()
            } catch {
                printError("error: \(error)")
                throw ExitCode.failure
            }
            guard !records.isEmpty else {
                print("No calibrations stored in \(store.directory.path). Run `motionctl calibrate magnetometer` (or gyroscope, accelerometer).")
                return
            }
            for (path, record) in records {
                print(record.sensor.description)
                print("  file:          \(path)")
                print("  updated:       \(ISO8601DateFormatter().string(from: record.updated))")
                if let gyro = record.gyroscope {
                    print("  gyroscope:     bias (\(gyro.bias.map { decimals($0 * 180 / .pi, 3) }.joined(separator: ", "))) °/s over \(gyro.sampleCount) samples")
                }
                if let accel = record.accelerometer {
                    print("  accelerometer: offset (\(accel.offset.map { decimals($0, 4) }.joined(separator: ", "))) g, scale (\(accel.scale.map { decimals($0, 4) }.joined(separator: ", ")))")
                }
                if let mag = record.magnetometer, mag.isBackground {
                    print("  magnetometer:  background estimate (learned during use, not a figure-eight), accuracy \(mag.accuracy), σ \(decimals(mag.offsetSigma ?? .nan)) µT, field \(decimals(mag.fieldStrength, 1)) µT")
                    print("                 hard-iron offset (\(mag.hardIronOffset.map { decimals($0) }.joined(separator: ", "))) µT")
                    if mag.model == "ellipsoid" {
                        print("                 soft iron fitted in the background (from the holds between turns, or the directions a figure-eight covers)")
                    }
                } else if let mag = record.magnetometer {
                    print("  magnetometer:  \(mag.model) (figure-eight), accuracy \(mag.accuracy), field \(decimals(mag.fieldStrength, 1)) µT, fit error \(decimals(mag.fitErrorPercent)) %, coverage \(decimals(mag.coveragePercent, 0)) %")
                    print("                 hard-iron offset (\(mag.hardIronOffset.map { decimals($0) }.joined(separator: ", "))) µT")
                }
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove one sensor's calibration (its file name from `calibration show`, or its chip name) or --all.")

        @Flag(help: "Remove every stored calibration.")
        var all = false

        @Argument(help: "The sensor: its calibration file name, or its chip name when only one record has it.")
        var sensor: String?

        func validate() throws {
            if all == (sensor != nil) { throw ValidationError("name a sensor or pass --all (not both)") }
        }

        func run() throws {
            let store = CalibrationStore.userDefault()
            do {
                if all {
                    let removed = try store.clearAll()
                    print(removed.isEmpty ? "No calibrations stored in \(store.directory.path)." : removed.map { "removed \($0)" }.joined(separator: "\n"))
                    return
                }
                let records = try store.all()
                let wanted = sensor ?? ""
                let matches = records.filter { entry in
                    let name = entry.record.sensor.fileName
                    return name == wanted || name == wanted + ".json" || entry.path == wanted || entry.record.sensor.chip == wanted
                }
                guard matches.count == 1, let match = matches.first else {
                    let known = records.map { $0.record.sensor.fileName }.joined(separator: ", ")
                    printError("error: \(matches.isEmpty ? "no" : "more than one") stored calibration matches \"\(wanted)\"; stored: \(known.isEmpty ? "none" : known)")
                    throw ExitCode.failure
                }
                try store.clear(match.record.sensor)
                print("removed \(match.path)")
            } catch let error as CalibrationStoreError {
                printError("error: \(error)")
                throw ExitCode.failure
            }
        }
    }

    /// For the concurrency test: updates one section of a test sensor's record `count` times,
    /// checking before each update that the section still holds what this process wrote last (a
    /// lost update, another writer saving a stale copy over it, fails with status 1).
    struct StressUpdate: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stress-update", shouldDisplay: false)

        enum Section: String, ExpressibleByArgument { case gyroscope, accelerometer }
        @Option var section: Section
        @Option var count = 100

        func run() throws {
            let store = CalibrationStore.userDefault()
            let sensor = SensorIdentity(board: "stress", chip: "TEST", bus: "stress", address: 0x43)
            var lost = 0
            for index in 1...max(1, count) {
                try store.update(sensor) { record in
                    switch section {
                    case .gyroscope:
                        if (record.gyroscope?.sampleCount ?? 0) != index - 1 { lost += 1 }
                        record.gyroscope = CalibrationRecord.Gyroscope(bias: .zero, sampleCount: index)
                    case .accelerometer:
                        if Int(record.accelerometer?.offset.first.map { $0 * 1e4 }?.rounded() ?? 0) != index - 1 { lost += 1 }
                        record.accelerometer = CalibrationRecord.Accelerometer(offset: SIMD3(Double(index) * 1e-4, 0, 0), scale: SIMD3(1, 1, 1))
                    }
                }
            }
            print("\(section.rawValue): \(count) updates, \(lost) lost")
            if lost > 0 { throw ExitCode.failure }
        }
    }

    /// For the crash-safety test: saves two alternating records of one test sensor in a loop, so
    /// a SIGKILL lands in the middle of a save.
    struct StressSave: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stress-save", shouldDisplay: false)

        @Option var count = Int.max

        func run() throws {
            let store = CalibrationStore.userDefault()
            let sensor = SensorIdentity(board: "stress", chip: "TEST", bus: "stress", address: 0x42)
            print(store.url(for: sensor).path)
            fflush(nil)
            for index in 0..<count {
                var record = CalibrationRecord(sensor: sensor)
                let value = Double(index % 2) / 10   // 0 or 0.1: both plausible
                record.gyroscope = CalibrationRecord.Gyroscope(bias: SIMD3(repeating: value), sampleCount: index)
                record.magnetometer = CalibrationRecord.Magnetometer(
                    hardIronOffset: SIMD3(repeating: value), softIronMatrix: [1, 0, 0, 0, 1, 0, 0, 0, 1], fieldStrength: 50,
                    fitErrorPercent: 1, coveragePercent: 90, model: "ellipsoid", accuracy: "high")
                try store.save(record)
            }
        }
    }
}
