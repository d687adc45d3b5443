import Motion
import Foundation
import I2C
import IIO
import LinuxI2C
import Sensors

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One finding of `Doctor`: what was checked, how it stands, and what to do about it.
package struct DoctorCheck: Sendable, Equatable, CustomStringConvertible {
    package enum Status: String, Sendable, Equatable, Comparable {
        case ok, warning, error

        private var rank: Int {
            switch self {
            case .ok: 0
            case .warning: 1
            case .error: 2
            }
        }

        package static func < (lhs: Status, rhs: Status) -> Bool { lhs.rank < rhs.rank }
    }

    package enum Topic: String, Sendable, Equatable, CaseIterable {
        case board
        case i2c = "I2C"
        case spi = "SPI"
        case permissions
        case busScan = "bus scan"
        case iio = "IIO"
        case calibration
    }

    package var topic: Topic
    package var status: Status
    /// What was found, in one or two sentences.
    package var message: String
    /// What to do; `nil` when nothing needs doing.
    package var fix: String?

    package init(_ topic: Topic, _ status: Status, _ message: String, fix: String? = nil) {
        self.topic = topic
        self.status = status
        self.message = message
        self.fix = fix
    }

    package var description: String {
        var text = "[\(status.rawValue)] \(topic.rawValue): \(message)"
        if let fix { text += "\n  fix: \(fix)" }
        return text
    }
}

/// Checks the machine it runs on: which board this is, whether I2C is enabled, whether this user
/// may open the bus, what answers on it, and whether calibration exists. Every problem comes with
/// the fix.
///
/// Everything it reads goes through `fileSystemRoot`, `environment` and the injected closures, so
/// tests run it against a fake tree.
package struct Doctor: Sendable {
    /// Lists the 7-bit addresses that acknowledge on a bus (`/dev/i2c-N`), like `i2cdetect`.
    package typealias BusScanner = @Sendable (_ device: String) throws(I2CError) -> [I2CAddress]

    /// The directory that stands for `/`; the real machine uses `/`.
    package var fileSystemRoot: String
    /// The process environment (`HOME`, `XDG_CONFIG_HOME`).
    package var environment: [String: String]
    package var catalog: BoardCatalog
    /// A board the user named (e.g. their own board file); when `nil` the board is detected.
    package var board: Board?
    /// Whether this user may open a path (already joined to the root) for reading and writing.
    package var canReadWrite: @Sendable (String) -> Bool
    /// The bus scan; when `nil` the "what answers on the bus" check is left out.
    package var scanBus: BusScanner?
    /// Opens a bus (`/dev/i2c-N`) for the identity reads that follow a scan; when `nil` they are
    /// left out.
    package var openBus: BusOpener?
    /// Opens a bus by its device name.
    package typealias BusOpener = @Sendable (_ device: String) throws(I2CError) -> any I2CBus
    /// Identity reads per IMU found: enough to catch a bus that corrupts a few percent of its
    /// transfers, few enough to stay quick.
    package static let identityAttempts = 40

    package init(
        fileSystemRoot: String = "/",
        environment: [String: String] = ProcessInfo.processInfo.environment,
        catalog: BoardCatalog = .builtIn,
        board: Board? = nil,
        canReadWrite: @escaping @Sendable (String) -> Bool = Doctor.accessCheck,
        scanBus: BusScanner? = nil, openBus: BusOpener? = nil
    ) {
        self.fileSystemRoot = fileSystemRoot
        self.environment = environment
        self.catalog = catalog
        self.board = board
        self.canReadWrite = canReadWrite
        self.scanBus = scanBus
        self.openBus = openBus
    }

    /// `access(2)` with read and write permission.
    package static let accessCheck: @Sendable (String) -> Bool = { path in
        access(path, R_OK | W_OK) == 0
    }

    /// Where calibration files live (``CalibrationStore/userDefault(environment:)``):
    /// `$XDG_CONFIG_HOME/swift-motion/calibration`, else `$HOME/.config/swift-motion/calibration`;
    /// `nil` when neither variable is set.
    package static func configDirectory(environment: [String: String]) -> String? {
        let hasXDG = environment["XDG_CONFIG_HOME"]?.hasPrefix("/") == true
        let hasHome = !(environment["HOME"] ?? "").isEmpty
        guard hasXDG || hasHome else { return nil }
        return CalibrationStore.userDefault(environment: environment).directory.path
    }

    /// Runs every check, in the order a person fixes things.
    package func run() -> [DoctorCheck] {
        let (board, boardChecks) = checkBoard()
        var checks = boardChecks
        let nodes = i2cDeviceNodes()
        checks.append(checkI2C(board: board, nodes: nodes))
        let usable = usableNodes(board: board, nodes: nodes)
        if !usable.isEmpty {
            let (permissionCheck, openable) = checkPermissions(usable)
            checks.append(permissionCheck)
            if let scanBus {
                checks += checkBusScan(board: board, devices: openable, scan: scanBus)
            }
        }
        if let spi = checkSPI(board: board) { checks.append(spi) }
        checks += checkKernelDrivers(board: board, nodes: usable)
        checks.append(checkIIO())
        checks.append(checkCalibration())
        return checks
    }

    // MARK: Checks

    private func checkBoard() -> (Board?, [DoctorCheck]) {
        var checks = BoardCatalog.builtInProblems.map {
            DoctorCheck(.board, .error, "built-in board file invalid: \($0)", fix: "report this: the build embedded a broken board file")
        }
        let model = BoardCatalog.readDeviceTreeModel(fileSystemRoot: fileSystemRoot)
        if let board {
            checks.append(DoctorCheck(.board, .ok, "\(board.name) (\(board.id)), as named with --board"))
            return (board, checks)
        }
        guard let model else {
            checks.append(DoctorCheck(
                .board, .warning,
                "not a device-tree machine (no /proc/device-tree/model): not a known board; the simulated board is the default",
                fix: "on a single-board computer, check that /proc/device-tree/model exists; for other hardware write a board file (boards/README.md) and pass it with --board FILE"))
            return (nil, checks)
        }
        guard let detected = catalog.detect(model: model) else {
            checks.append(DoctorCheck(
                .board, .warning, "device-tree model \"\(model)\" is not a known board",
                fix: "write a board file for it (schema in boards/README.md; `motionctl boards` lists the known ones) and pass it with --board FILE"))
            return (nil, checks)
        }
        checks.append(DoctorCheck(.board, .ok, "\(detected.name) (\(detected.id)), device-tree model \"\(model)\""))
        return (detected, checks)
    }

    private func checkI2C(board: Board?, nodes: [String]) -> DoctorCheck {
        guard !nodes.isEmpty else {
            let adapters = directoryEntries("sys/class/i2c-adapter").filter { $0.hasPrefix("i2c-") }
            if !adapters.isEmpty {
                return DoctorCheck(
                    .i2c, .error,
                    "no I2C device nodes: the kernel has \(adapters.count) I2C adapter(s) but no /dev/i2c-*, so the i2c-dev module is not loaded",
                    fix: "sudo modprobe i2c-dev; to load it at every boot: echo i2c-dev | sudo tee /etc/modules-load.d/i2c-dev.conf")
            }
            let fix = board.map { "\($0.name): \($0.setup)" } ?? Self.genericEnableAdvice
            return DoctorCheck(.i2c, .error, "no I2C bus: there is no /dev/i2c-* device node on this machine", fix: fix)
        }
        guard let board, let expected = board.defaultBus else {
            return DoctorCheck(.i2c, .ok, "I2C buses: \(nodes.joined(separator: ", "))")
        }
        if !nodes.contains(expected.device) {
            return DoctorCheck(
                .i2c, .warning,
                "I2C is on (\(nodes.joined(separator: ", "))) but not the bus on the header, \(expected.device) (\(pinText(expected)))",
                fix: board.setup)
        }
        let others = nodes.filter { $0 != expected.device }
        let rest = others.isEmpty ? "" : "; also \(others.joined(separator: ", "))"
        return DoctorCheck(.i2c, .ok, "\(expected.device) is present (\(pinText(expected)))\(rest)")
    }

    /// SPI, where it matters: on a board whose file puts an IMU on SPI (its device must exist
    /// and be usable), where /dev/spidev* exist (usable by this user?), and on a Raspberry Pi
    /// (how to turn it on, for an IMU wired to SPI); nil elsewhere.
    private func checkSPI(board: Board?) -> DoctorCheck? {
        let nodes = directoryEntries("dev").filter { $0.hasPrefix("spidev") }.sorted().map { "/dev/\($0)" }
        let wanted: [String] = board?.imuLocations.compactMap { if case .spi(let device) = $0 { device } else { nil } } ?? []
        let missing = wanted.filter { !nodes.contains($0) }
        if !missing.isEmpty {
            return DoctorCheck(
                .spi, .error, "\(board?.name ?? "the board") puts an IMU on \(missing.joined(separator: ", ")), which does not exist",
                fix: LinuxSPIBus.enableSPIHint)
        }
        if !nodes.isEmpty {
            let denied = nodes.filter { !canReadWrite(onDisk($0)) }
            if !denied.isEmpty {
                return DoctorCheck(
                    .spi, .warning, "not allowed to use \(denied.joined(separator: ", "))",
                    fix: "add yourself to the spi group with `sudo usermod -aG spi $USER`, then log out and in again")
            }
            return DoctorCheck(.spi, .ok, "SPI devices: \(nodes.joined(separator: ", ")) (an IMU behind one: --spi DEVICE; `motionctl probe` names it)")
        }
        guard board?.id.hasPrefix("raspberry-pi") == true else { return nil }
        return DoctorCheck(
            .spi, .ok, "SPI is off (no /dev/spidev*): needed only for an IMU wired to SPI. \(LinuxSPIBus.enableSPIHint)")
    }

    private func checkPermissions(_ devices: [String]) -> (DoctorCheck, [String]) {
        let denied = devices.filter { !canReadWrite(onDisk($0)) }
        let openable = devices.filter { !denied.contains($0) }
        if denied.isEmpty {
            return (DoctorCheck(.permissions, .ok, "this user may read and write \(devices.joined(separator: ", "))"), openable)
        }
        let check = DoctorCheck(
            .permissions, .error, "this user may not open \(denied.joined(separator: ", ")) for reading and writing",
            fix: "sudo usermod -aG i2c $USER, then log out and back in (check the node's group with ls -l \(denied[0])); if no i2c group owns it, add the udev rule SUBSYSTEM==\"i2c-dev\", GROUP=\"i2c\", MODE=\"0660\" to /etc/udev/rules.d/99-i2c.rules")
        return (check, openable)
    }

    private func checkBusScan(board: Board?, devices: [String], scan: BusScanner) -> [DoctorCheck] {
        let imu = board?.imuAddresses ?? ChipRegistry.imuScanAddresses
        let magnetometer = board?.magnetometerAddresses ?? ChipRegistry.magnetometerScanAddresses
        return devices.flatMap { device -> [DoctorCheck] in
            let scanCheck = checkScan(device: device, board: board, imu: imu, magnetometer: magnetometer, scan: scan)
            return [scanCheck.check] + checkIdentityReads(device: device, board: board, addresses: scanCheck.imus)
                + wiringNotes(device: device, addresses: scanCheck.magnetometers)
        }
    }

    /// What answers on one bus, and the IMU addresses among them.
    private func checkScan(
        device: String, board: Board?, imu: [I2CAddress], magnetometer: [I2CAddress], scan: BusScanner
    ) -> (check: DoctorCheck, imus: [I2CAddress], magnetometers: [I2CAddress]) {
        var found: [I2CAddress]
        do throws(I2CError) {
            found = try scan(device)
        } catch {
            return (DoctorCheck(.busScan, .error, "scanning \(device) failed: \(error)", fix: error.hint), [], [])
        }
        // A chip a kernel driver holds refuses the scan (EBUSY) but is there.
        let barometer = ChipRegistry.barometerScanAddresses
        let held = KernelDriverClaim.claims(bus: device, addresses: imu + magnetometer + barometer, sysfsRoot: onDisk("sys")).map(\.address)
        found = Array(Set(found + held)).sorted { $0.rawValue < $1.rawValue }
        let bus = board?.i2cBuses.first { $0.device == device }
        let wiring = bus.map { "check the wiring: SDA to pin \($0.sdaPin.header), SCL to pin \($0.sclPin.header), 3.3 V and GND, and the breakout's pull-ups" }
            ?? "check the wiring (SDA, SCL, 3.3 V, GND) and the breakout's pull-ups"
        if found.isEmpty {
            return (DoctorCheck(.busScan, .warning, "nothing answers on \(device)", fix: wiring), [], [])
        }
        let list = found.map(\.description).joined(separator: " ")
        let imus = found.filter(imu.contains)
        let magnetometers = found.filter(magnetometer.contains)
        if imus.isEmpty {
            return (DoctorCheck(
                .busScan, .warning, "\(device) answers at \(list), but not at an IMU address (\(imu.map(\.description).joined(separator: " ")))",
                fix: "check the IMU's address pin (AD0/SA0) and wiring; \(wiring)"), [], magnetometers)
        }
        var message = "\(device) answers at \(list): IMU at \(imus.map(\.description).joined(separator: " "))"
        message += magnetometers.isEmpty ? ", no magnetometer at the usual addresses" : ", magnetometer at \(magnetometers.map(\.description).joined(separator: " "))"
        // A barometer is named when one answers (most boards have none; its absence is no fault).
        let barometers = found.filter(barometer.contains)
        if !barometers.isEmpty { message += ", barometer at \(barometers.map(\.description).joined(separator: " "))" }
        return (DoctorCheck(.busScan, .ok, message), imus, magnetometers)
    }

    /// Reads each IMU's identity ``identityAttempts`` times: a chip that answers correctly only
    /// some of the time sits on a bus that corrupts transfers. For a chip that stretches the
    /// clock on a Raspberry Pi, whose controller mishandles stretching, the fix is named.
    private func checkIdentityReads(device: String, board: Board?, addresses: [I2CAddress]) -> [DoctorCheck] {
        guard let openBus, !addresses.isEmpty else { return [] }
        let bus: any I2CBus
        do throws(I2CError) {
            bus = try openBus(device)
        } catch {
            return [DoctorCheck(.busScan, .error, "opening \(device) failed: \(error)", fix: error.hint)]
        }
        return addresses.flatMap { address -> [DoctorCheck] in
            let reads = ChipCatalog.identityStability(bus: bus, address: address, attempts: Self.identityAttempts)
            guard let chip = reads.chip else { return [] }
            let tally = "\(reads.good) of \(reads.attempts) identity reads of the \(chip.name) at \(address) on \(device) were right"
            guard reads.isIntermittent else { return [DoctorCheck(.busScan, .ok, tally)] + Self.wiringNote(chip) }
            let message = tally + " (\(reads.wrong) wrong, \(reads.failed) failed): the bus corrupts transfers now and then"
            return [DoctorCheck(.busScan, .warning, message, fix: Self.unreliableBusFix(chip: chip, board: board, device: device))]
                + Self.wiringNote(chip)
        }
    }

    /// The wiring and pitfalls of each magnetometer identified at `addresses` (one identity read each).
    /// A bus that does not open or a chip that is not identified adds nothing: the scan and the
    /// IMU's identity reads have reported the bus already.
    private func wiringNotes(device: String, addresses: [I2CAddress]) -> [DoctorCheck] {
        guard let openBus, !addresses.isEmpty else { return [] }
        do {
            let bus = try openBus(device)
            return try addresses.flatMap { address in
                try ChipCatalog.identify(bus: bus, address: address).map(Self.wiringNote) ?? []
            }
        } catch {
            return []
        }
    }

    /// The chip's wiring and pitfalls from its descriptor (``ChipDescriptor/wiring``); none for most chips.
    static func wiringNote(_ chip: ChipInfo) -> [DoctorCheck] {
        guard let wiring = chip.descriptor?.wiring else { return [] }
        return [DoctorCheck(.busScan, .ok, "\(chip.name) at \(chip.address): \(wiring)")]
    }

    /// What to do about a bus that corrupts transfers to `chip`.
    static func unreliableBusFix(chip: ChipInfo, board: Board?, device: String) -> String {
        let generic = "check the wiring (short leads, a common ground) and the pull-ups (2.2–10 kΩ to 3.3 V), and lower the bus speed"
        guard ChipCatalog.stretchesClock(chip) else { return generic }
        guard board?.id.hasPrefix("raspberry-pi") == true else {
            return "the \(chip.name) stretches the I2C clock and this bus controller may not wait for it: lower the bus speed "
                + "(10 kHz is a usual starting point) or use a controller or software (bit-banged) I2C that supports clock stretching; then \(generic)"
        }
        return "the \(chip.name) stretches the I2C clock, which the Raspberry Pi's I2C controller does not handle reliably. "
            + "Either slow the bus down: add `dtparam=i2c_arm_baudrate=10000` to /boot/firmware/config.txt (/boot/config.txt before "
            + "Bookworm) and reboot (try 5000 if reads still go wrong); or use software I2C, which waits for the stretched clock: "
            + "turn off hardware I2C (sudo raspi-config nonint do_i2c 1), add `dtoverlay=i2c-gpio,bus=3,i2c_gpio_sda=2,i2c_gpio_scl=3` "
            + "(the same pins 3 and 5) and reboot, then use /dev/i2c-3 (--bus /dev/i2c-3 or a board file)"
    }

    /// IMU addresses a kernel driver holds (a dtoverlay): I2C access fails busy there.
    private func checkKernelDrivers(board: Board?, nodes: [String]) -> [DoctorCheck] {
        let addresses = board?.imuAddresses ?? ChipRegistry.imuScanAddresses
        return nodes.flatMap { KernelDriverClaim.claims(bus: $0, addresses: addresses, sysfsRoot: onDisk("sys")) }.map { claim in
            DoctorCheck(.i2c, .warning, "\(claim): swift-motion's I2C driver cannot reach it (EBUSY)", fix: claim.fix)
        }
    }

    /// Linux's own motion sensor drivers (IIO): what they offer, and whether this user may read them.
    private func checkIIO() -> DoctorCheck {
        let root = onDisk(IIODiscovery.defaultRoot)
        let (devices, problems) = IIODiscovery.devices(root: root)
        if let problem = problems.first {
            return DoctorCheck(.iio, problem.kind == .permissionDenied ? .error : .warning, "an IIO device cannot be read: \(problem)", fix: problem.hint)
        }
        guard let sensors = IIOMotionSensors.choose(from: devices) else {
            return DoctorCheck(.iio, .ok, devices.isEmpty
                ? "no IIO motion sensors (no kernel sensor driver offers an accelerometer); swift-motion's I2C driver or the simulated board is used"
                : "IIO lists \(devices.map(\.summary).joined(separator: "; ")), but no accelerometer")
        }
        do throws(IIOError) {
            _ = try sensors.accelerometer.group(.accelerometer)?.read()
        } catch {
            return DoctorCheck(.iio, .error, "\(sensors.summary) is listed but cannot be read: \(error)", fix: error.hint)
        }
        return DoctorCheck(.iio, .ok, "Linux's own driver offers \(sensors.summary): readable with --source iio (MotionSource.iio)")
    }

    private func checkCalibration() -> DoctorCheck {
        guard let directory = Self.configDirectory(environment: environment) else {
            return DoctorCheck(.calibration, .warning, "no calibration directory: neither XDG_CONFIG_HOME nor HOME is set", fix: "set HOME")
        }
        let files = directoryEntries(String(directory.drop { $0 == "/" })).filter { $0.hasSuffix(".json") }.sorted()
        if files.isEmpty {
            return DoctorCheck(
                .calibration, .warning, "no calibration files in \(directory)",
                fix: "calibrate with motionctl (gyroscope at rest, accelerometer on six faces, magnetometer in a figure-eight); see motionctl --help")
        }
        return DoctorCheck(.calibration, .ok, "\(files.count) calibration file(s) in \(directory): \(files.joined(separator: ", "))")
    }

    // MARK: File system

    /// `/dev/i2c-N` nodes, by bus number.
    private func i2cDeviceNodes() -> [String] {
        directoryEntries("dev")
            .compactMap { name -> (Int, String)? in
                guard name.hasPrefix("i2c-"), let number = Int(name.dropFirst(4)) else { return nil }
                return (number, "/dev/\(name)")
            }
            .sorted { $0.0 < $1.0 }
            .map(\.1)
    }

    /// The nodes worth checking further: the board's buses when the board is known, else all.
    private func usableNodes(board: Board?, nodes: [String]) -> [String] {
        guard let board else { return nodes }
        return nodes.filter { node in board.i2cBuses.contains { $0.device == node } }
    }

    /// The names in a directory; a directory that is absent or unreadable counts as empty (the
    /// checks then report what is missing from it).
    private func directoryEntries(_ relativePath: String) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: onDisk(relativePath))
        } catch {
            return []
        }
    }

    /// A machine path (`/dev/i2c-1`, `dev`) under `fileSystemRoot`.
    private func onDisk(_ path: String) -> String {
        URL(fileURLWithPath: fileSystemRoot).appendingPathComponent(String(path.drop { $0 == "/" })).path
    }

    private func pinText(_ bus: Board.I2CBus) -> String {
        "SDA pin \(bus.sdaPin.header) \(bus.sdaPin.soc), SCL pin \(bus.sclPin.header) \(bus.sclPin.soc)"
    }

    static let genericEnableAdvice = """
        enable the I2C controller in the board's device tree (Raspberry Pi: sudo raspi-config nonint do_i2c 0; \
        other boards: an overlay, see `motionctl boards show <id>`), load the i2c-dev module (sudo modprobe i2c-dev), \
        reboot if the device tree changed, then check with ls /dev/i2c-*. Without hardware the simulated board is used
        """
}
