import Foundation
import Testing

/// Heap allocations per sample in the sampler's steady state (issue 17): `alloc-check` runs device
/// motion at 100 Hz on the simulated board in virtual time for every simulated IMU (with its usual
/// magnetometer) and every separate magnetometer, through the timer and through the chip's FIFO,
/// and counts the allocations of the whole pipeline (emulated chips, bus, drivers, sampler, filter)
/// after a warm-up: 0 for every chip. With the samples handed to a handler on a `DispatchQueue`,
/// Dispatch allocates one continuation per hop (see `Delivery`), at most one per sample, and each
/// handler call gets its own `DeviceMotion` with its own `Attitude` object (a class, as Core
/// Motion's; made as the sample is sent to the delivery, `ChannelValue`; two where the chip fuses too): the
/// count runs until the handler has taken every sample of the window, and allows exactly these.
///
/// The counts hold for optimized code: an unoptimized build allocates in the standard library's
/// generic code (coroutine frames of collection accessors, unspecialized iterators) on every
/// sample. So this test runs the release build of `alloc-check`
/// (`swift build -c release --product alloc-check`, which `.ci/run` does before `swift test`), or
/// the binary named by `SWIFT_MOTION_ALLOC_CHECK`; without either it is skipped.
@Suite("allocations per sample")
struct AllocationTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The optimized `alloc-check`, if built.
    static var binary: URL? {
        if let path = ProcessInfo.processInfo.environment["SWIFT_MOTION_ALLOC_CHECK"] {
            return URL(fileURLWithPath: path)
        }
        let release = packageRoot.appendingPathComponent(".build/release/alloc-check")
        return FileManager.default.isExecutableFile(atPath: release.path) ? release : nil
    }

    struct Count: Equatable {
        var run: String
        var allocations: Int
        var samples: Int
        /// The `Attitude` objects the handler got (0 without a handler).
        var attitudes: Int
    }

    /// `alloc-check`'s standard output with `arguments`, one string a line.
    static func lines(_ arguments: [String]) throws -> [String] {
        let process = Process()
        process.executableURL = try #require(binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The runs `alloc-check` makes, `<imu> <magnetometer>`: every simulated IMU with its usual
    /// magnetometer and every separate magnetometer, as the emulator registry lists them.
    static func listedRuns() throws -> [String] { try lines(["--list"]) }

    /// `alloc-check` for every run, or with `only` for one run again.
    static func counts(only run: Count? = nil) throws -> [Count] {
        // 80 s of warm-up: the simulated bus's transaction log (10 000 transactions) has filled
        // and its arrays have reached their size.
        var arguments = ["--warmup", "80", "--seconds", "2"]
        if let run {
            let fields = run.run.split(separator: " ").map(String.init)
            arguments += ["--imu", fields[0], "--magnetometer", fields[1] == "built-in" ? "usual" : fields[1],
                          "--mode", fields[2].hasPrefix("fifo") ? "fifo" : "timer"]
        }
        return try lines(arguments).compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 6, let allocations = Int(fields[3]), let samples = Int(fields[4]), let attitudes = Int(fields[5]) else { return nil }
            return Count(run: fields[0...2].joined(separator: " "), allocations: allocations, samples: samples, attitudes: attitudes)
        }
    }

    @Test("no allocation per sample, every chip, timer and FIFO", .enabled(if: binary != nil, "needs the release build of alloc-check"))
    func zeroAllocations() throws {
        let counts = try Self.counts()
        // Every IMU with its usual magnetometer (`built-in` for one inside its package or its own
        // registers) and every separate magnetometer beside the LSM6DSOX, each through the timer
        // and the FIFO (a chip without one on its timer both times), polled and with a handler
        // queue: four counts a run, none failed.
        let listed = try Self.listedRuns()
        #expect(!listed.isEmpty && listed.contains { $0.hasSuffix(" built-in") }, "\(listed)")
        #expect(counts.count == 4 * listed.count, "\(counts.count) counts for \(listed.count) runs")
        let runs = Set(counts.map(\.run))
        for run in listed {
            for mode in ["timer", "fifo", "timer+queue", "fifo+queue"] {
                #expect(runs.contains("\(run) \(mode)"), "\(run) \(mode)")
            }
        }
        for count in counts {
            // 2 s at 100 Hz through the timer; through the FIFO at the chip's rate, 200 or more.
            #expect(count.samples >= 199, "\(count.run): \(count.samples) samples")
            if count.run.hasSuffix("+queue") {
                // Dispatch's continuation per hop, the attitude objects of each handler call (one,
                // two where the chip fuses too), and a few more of Dispatch's own when the machine
                // is busy.
                // The ADXL345, an accelerometer alone, has no device motion: its accelerometer
                // updates are counted, without attitude objects.
                let attitudesPerSample = count.run.hasPrefix("adxl345 ") ? 0...0 : count.samples...(2 * count.samples)
                #expect(attitudesPerSample.contains(count.attitudes), "\(count.run): \(count.attitudes) attitudes over \(count.samples) samples")
                #expect(count.allocations <= count.samples + count.attitudes + 10, "\(count.run): \(count.allocations) allocations over \(count.samples) samples and \(count.attitudes) attitudes")
            } else if count.allocations > 0 {
                // On a loaded machine Dispatch now and then starts a worker thread (its set-up
                // allocates) inside the counted window. That is not per sample: the same run again
                // shows 0, where an allocation on the read path would show one per sample again.
                let again = try (0..<2).map { _ in try Self.counts(only: count).first { $0.run == count.run }?.allocations ?? -1 }
                #expect(again.contains(0), "\(count.run): \(count.allocations) allocations over \(count.samples) samples, then \(again)")
            }
        }
    }

    /// The altimeter: every barometer of the driver registry, emulated, read at its own rate for
    /// 20 s after the warm-up, relative-altitude updates (one a second) to a handler on a
    /// DispatchQueue. Nothing is allocated per reading (chip, bus, driver, sampler, the update's
    /// sums); the updates' hops to the queue are Dispatch's continuations, at most one an update.
    @Test("no allocation per barometer reading, every barometer", .enabled(if: binary != nil, "needs the release build of alloc-check"))
    func barometerReadings() throws {
        let listed = try Self.lines(["--barometer", "--list"])
        #expect(listed.count >= 9 && listed.contains("ms5611"), "\(listed)")
        let lines = try Self.lines(["--barometer", "--warmup", "80", "--seconds", "20"])
        // One line a registry barometer, in its order: none left out, none not emulated.
        #expect(lines.map { String($0.split(separator: " ").first ?? "") } == listed, "\(lines)")
        for line in lines {
            let fields = line.split(separator: " ")
            // <barometer> barometer updates+queue <allocations> <readings> <updates>
            #expect(fields.count == 6, "\(line)")
            guard fields.count == 6, let allocations = Int(fields[3]), let readings = Int(fields[4]), let updates = Int(fields[5]) else { continue }
            // 20 s at the chip's rate: 25 Hz (one reading each 40 ms) to 26.3 Hz (the BMP280's).
            #expect(readings >= 480 && updates >= 19, "\(line)")
            // An allocation a reading would give 480 or more; the updates' hops give one an update.
            #expect(allocations <= updates + 5, "\(line)")
        }
    }

    @Test("no allocation per sample while a pedometer and an activity manager count a walk", .enabled(if: binary != nil, "needs the release build of alloc-check"))
    func zeroAllocationsCountingSteps() throws {
        // The step stage on every sample and the step history recorded at each step, beside
        // device motion, during walk-hand's second walk (80 s of warm-up, 2 s counted).
        let counts = try Self.lines(["--steps", "--imu", "lsm6dsox", "--magnetometer", "usual", "--warmup", "80", "--seconds", "2"])
            .compactMap { line -> Count? in
                let fields = line.split(separator: " ")
                guard fields.count == 6, let allocations = Int(fields[3]), let samples = Int(fields[4]), let attitudes = Int(fields[5]) else { return nil }
                return Count(run: fields[0...2].joined(separator: " "), allocations: allocations, samples: samples, attitudes: attitudes)
            }
        #expect(counts.map(\.run) == ["lsm6dsox lis3mdl timer+steps", "lsm6dsox lis3mdl timer+queue+steps",
                                      "lsm6dsox lis3mdl fifo+steps", "lsm6dsox lis3mdl fifo+queue+steps"])
        for count in counts {
            #expect(count.samples >= 199, "\(count.run): \(count.samples) samples")
            if count.run.contains("+queue") {
                // Dispatch's continuation per hop and the attitude objects the handler got.
                #expect(count.allocations <= count.samples + count.attitudes + 10, "\(count.run): \(count.allocations) allocations over \(count.samples) samples")
            } else {
                #expect(count.allocations == 0, "\(count.run): \(count.allocations) allocations over \(count.samples) samples")
            }
        }
    }

    @Test("no allocation per sample while a pedometer counts on the chip", .enabled(if: binary != nil, "needs the release build of alloc-check"))
    func zeroAllocationsCountingOnTheChip() throws {
        // The LSM6DSOX's step counter read every 0.1 s into the step stage, beside device motion.
        let counts = try Self.lines(["--steps", "--chip-steps", "--imu", "lsm6dsox", "--magnetometer", "usual", "--warmup", "80", "--seconds", "2"])
            .compactMap { line -> Count? in
                let fields = line.split(separator: " ")
                guard fields.count == 6, let allocations = Int(fields[3]), let samples = Int(fields[4]), let attitudes = Int(fields[5]) else { return nil }
                return Count(run: fields[0...2].joined(separator: " "), allocations: allocations, samples: samples, attitudes: attitudes)
            }
        #expect(counts.map(\.run) == ["lsm6dsox lis3mdl timer+chipsteps", "lsm6dsox lis3mdl timer+queue+chipsteps",
                                      "lsm6dsox lis3mdl fifo+chipsteps", "lsm6dsox lis3mdl fifo+queue+chipsteps"])
        for count in counts where !count.run.contains("+queue") {
            #expect(count.allocations == 0, "\(count.run): \(count.allocations) allocations over \(count.samples) samples")
        }
    }
}
