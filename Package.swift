// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-motion",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Motion", targets: ["Motion"]),
        .executable(name: "motionctl", targets: ["motionctl"]),
        // The research commands (`evaluate` on BROAD, `background-check` on the simulated board), kept out of motionctl.
        .executable(name: "motion-lab", targets: ["motion-lab"]),
        // Device motion to an MQTT broker through libmosquitto: a product of its own, so that `Motion` needs no libmosquitto.
        .library(name: "MotionPublish", targets: ["MotionPublish"]),
        // The simulated board for tests, replays and hardware-in-the-loop rigs: scenarios, recordings,
        // faults, the virtual clock. A product of its own, so that `Motion` is what a Core Motion user needs.
        .library(name: "MotionSimulation", targets: ["MotionSimulation"]),
        // Device motion to ROS 2 over DDS through Eclipse Cyclone DDS: a product of its own, so that `Motion` needs no libddsc.
        .library(name: "MotionROS", targets: ["MotionROS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // Bus layer: kernel headers + libi2c, the bus protocol, the Linux bus, a test double.
        .systemLibrary(name: "CI2C", path: "CModules/CI2C", providers: [.apt(["libi2c-dev"])]),
        .target(name: "I2C", dependencies: ["Locking"]),
        .target(name: "I2CMock", dependencies: ["I2C", "Locking"]),
        .systemLibrary(name: "CSPI", path: "CModules/CSPI"),
        .target(name: "LinuxI2C", dependencies: ["I2C", "CI2C", "CSPI", "Locking"]),
        // Files a person names: read with a size bound, written atomically or into a device (never replacing one).
        .target(name: "FileAccess"),
        // A lock the thread sanitizer understands (see Locked.swift).
        .target(name: "Locking"),
        // Time: monotonic clock, Dispatch timers, and a virtual clock for tests.
        .target(name: "Timing", dependencies: ["Locking"]),
        // Chip drivers (registers → SI sample) and the register-level simulator.
        .target(name: "Sensors", dependencies: ["I2C", "Locking"]),
        .target(name: "MotionSimulator", dependencies: ["I2C", "Timing", "Locking", "Fusion", "FileAccess"]),
        // Pure math: attitude filter, orientation classifier, calibration fits.
        .target(name: "Fusion"),
        // The background magnetometer calibration (hard iron from ordinary handling, soft iron from the
        // holds or the whole sphere) behind the seam the sampler drives, `BackgroundFieldCalibrator`;
        // docs/background-calibration.md.
        .target(name: "FieldCalibration", dependencies: ["Fusion"]),
        // Linux's own sensor drivers (IIO): sysfs discovery, unit conversion, the buffer device.
        .target(name: "IIO"),
        // Test support: fake IIO sysfs trees and buffer devices in a temporary directory.
        .target(name: "IIOFake"),
        // The public API (API/), the sampler engine (Engine/), the sample sources (Devices/), board
        // files and the calibration store. docs/ARCHITECTURE.md maps it.
        .target(
            name: "Motion",
            dependencies: [
                "I2C", "LinuxI2C", "Sensors", "Fusion", "FieldCalibration", "Timing", "MotionSimulator", "Locking", "IIO", "FileAccess",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `MotionSimulation` product: the simulator's public face (Simulation's settings, a manager
        // on a virtual clock, the scenarios, recordings and faults), reaching Motion through `package` access.
        .target(name: "MotionSimulation", dependencies: ["Motion", "MotionSimulator", "Timing", "Fusion"]),
        // The command-line tools' toolbox: diagnostics (doctor, hardware checks, probe) and workflows
        // (calibration sessions, the background calibration's trial). Not a product: it uses the
        // package-level parts of `Motion`.
        .target(
            name: "MotionTools",
            dependencies: ["Motion", "MotionSimulation", "Sensors", "I2C", "LinuxI2C", "IIO", "Fusion", "FieldCalibration", "Timing", "Locking", "MotionSimulator", "FileAccess"]
        ),
        // The machine-readable output that the command line and the library products share (CSV and JSON
        // rows of `stream`, `record`, `calibrate --non-interactive` and `publish`'s payloads).
        .target(name: "MotionFormats", dependencies: ["Motion", "Fusion"]),
        // BROAD recordings (the benchmark's data set) as trials and replays: motion-lab evaluate, motion-bench, tests.
        .target(name: "BroadData", dependencies: ["MotionSimulator", "FileAccess"]),
        // `motionctl serve`: the live browser view over HTTP (its own bounded HTTP/1.1 on FlyingSocks' sockets; docs/serve-notes.md).
        .target(
            name: "MotionServe",
            dependencies: ["Motion", "MotionSimulation", "MotionTools", "Fusion", "Locking", "FileAccess", .product(name: "FlyingSocks", package: "FlyingFox")]
        ),
        // `motionctl publish` and its library: device motion, orientation and state to an MQTT broker through
        // Eclipse Mosquitto's client library (libmosquitto-dev), bound like libi2c.
        .systemLibrary(name: "CMosquitto", path: "CModules/CMosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .target(name: "MotionPublish", dependencies: ["Motion", "MotionFormats", "Fusion", "Locking", "CMosquitto", "FileAccess"]),
        // `motionctl ros2` and its library: sensor_msgs/Imu and MagneticField to ROS 2 over DDS through Eclipse
        // Cyclone DDS's C library (cyclonedds-dev), bound like libmosquitto; the messages' type descriptors
        // generated by Cyclone's idlc from CROSMessages' IDL (scripts/generate-ros-messages).
        .systemLibrary(name: "CCycloneDDS", path: "CModules/CCycloneDDS", pkgConfig: "CycloneDDS", providers: [.apt(["cyclonedds-dev"])]),
        .target(name: "CROSMessages", dependencies: ["CCycloneDDS"], path: "CModules/CROSMessages", exclude: ["ROSMessages.idl"]),
        .target(name: "MotionROS", dependencies: ["Motion", "Fusion", "Locking", "Timing", "CCycloneDDS", "CROSMessages"]),
        // One C function: whether C's standard output got everything (Swift 6 cannot name `stdout`).
        .target(name: "CStandardOutput", path: "CModules/CStandardOutput"),
        // What motionctl and motion-lab share: checked standard streams, the failure they report, the
        // option ranges, the checked `main`. Not in MotionTools, so that MotionPublish needs no ArgumentParser.
        .target(
            name: "CommandSupport",
            dependencies: ["CStandardOutput", "FileAccess", "Locking", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "motionctl",
            dependencies: [
                "Motion", "MotionSimulation", "MotionTools", "MotionFormats", "MotionSimulator", "Fusion", "FieldCalibration", "Sensors", "I2C", "LinuxI2C", "Locking", "CommandSupport", "IIO", "MotionServe", "MotionPublish", "MotionROS", "FileAccess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `motion-lab evaluate` (the attitude filter scored on BROAD), `motion-lab background-check` and `motion-lab steps` (the step detector on walking traces).
        .executableTarget(
            name: "motion-lab",
            dependencies: [
                "Motion", "MotionTools", "BroadData", "MotionSimulator", "Fusion", "FieldCalibration", "CommandSupport", "FileAccess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The kernel tier's static test binary (run inside QEMU against i2c-stub).
        .executableTarget(name: "i2c-kernel-check", dependencies: ["I2C", "LinuxI2C", "Sensors", "IIO", "Motion", "Locking"]),
        // Benchmarks: `swift run -c release motion-bench`.
        .executableTarget(name: "motion-bench", dependencies: ["Motion", "MotionSimulation", "BroadData", "MotionSimulator", "Fusion", "FieldCalibration", "Sensors", "Timing", "Locking", "MotionPublish", "MotionROS"]),
        // Heap allocations per sample in the sampler's steady state, every simulated chip (a process of
        // its own: CMallocCounter replaces the C allocator there). Run by `AllocationTests`.
        .target(name: "CMallocCounter", path: "CModules/CMallocCounter"),
        .executableTarget(name: "alloc-check", dependencies: ["Motion", "MotionSimulation", "MotionSimulator", "Sensors", "Timing", "CMallocCounter"]),

        .testTarget(name: "I2CTests", dependencies: ["I2C", "I2CMock"]),
        .testTarget(name: "LinuxI2CTests", dependencies: ["I2C", "LinuxI2C"]),
        // Test-only: a seeded noise source and a process runner the test targets share.
        // Points the test process's XDG_CONFIG_HOME at a temporary folder before any test runs, so
        // the tests never read or write the user's calibration store (CTestIsolation.c).
        .target(name: "CTestIsolation", path: "CModules/CTestIsolation"),
        .target(name: "TestSupport", dependencies: ["CTestIsolation"], path: "Tests/TestSupport"),
        .testTarget(name: "SensorsTests", dependencies: ["TestSupport", "BroadData", "Sensors", "I2C", "I2CMock", "MotionSimulator", "Timing", "Locking", "Fusion"]),
        .testTarget(name: "MotionSimulatorTests", dependencies: ["BroadData", "MotionSimulator", "I2C", "Timing", "Locking", "Fusion"]),
        .testTarget(name: "FusionTests", dependencies: ["Fusion", "TestSupport"]),
        // The background calibration's parts on synthetic readings (the sampler's use: MotionTests).
        .testTarget(name: "FieldCalibrationTests", dependencies: ["FieldCalibration", "Fusion", "TestSupport"]),
        .testTarget(name: "IIOTests", dependencies: ["IIO", "IIOFake"]),
        .testTarget(name: "MotionTests", dependencies: ["TestSupport", "Motion", "MotionSimulation", "MotionTools", "IIO", "IIOFake", "MotionSimulator", "Timing", "Fusion", "FieldCalibration", "Sensors", "I2C", "I2CMock", "Locking", "FileAccess"], exclude: ["FuzzCorpus"]),
        // Test-only: a pseudo-terminal for driving motionctl as a person would.
        .target(name: "CPseudoTerminal", path: "CModules/CPseudoTerminal"),
        .testTarget(name: "MotionctlTests", dependencies: ["TestSupport", "motionctl", "CommandSupport", "MotionSimulation", "CPseudoTerminal", "IIOFake"]),
        // motion-lab's commands, in process and as the built binary; and the documentation's own checks.
        .testTarget(name: "MotionLabTests", dependencies: ["TestSupport", "motion-lab", "BroadData", "Fusion"]),
        .testTarget(name: "ServeTests", dependencies: ["TestSupport", "MotionServe", "Motion", "MotionSimulation", "MotionTools", "MotionSimulator", "Timing", "Fusion", "motionctl"]),
        // Against a real broker (`mosquitto`, started by the tests; they skip without it).
        .testTarget(name: "PublishTests", dependencies: ["TestSupport", "MotionPublish", "Motion", "MotionSimulation", "MotionTools", "CMosquitto", "Locking", "motionctl"]),
        // MotionROS' conventions, and `motionctl ros2` against an independent ROS 2 subscriber (ros2_peer.py:
        // PyPI's cyclonedds and rosbags, in the virtual environment $SWIFT_MOTION_ROS2_PYTHON names; they skip without it).
        .testTarget(name: "ROSTests", dependencies: ["TestSupport", "MotionROS", "Fusion", "motionctl"], exclude: ["ros2_peer.py"]),
        // Runs the release build of alloc-check (no dependency: the counting malloc stays out of the test binary).
        .testTarget(name: "AllocationTests"),
        .testTarget(name: "HardwareTests", dependencies: ["Motion", "MotionSimulation", "MotionTools", "Sensors", "LinuxI2C", "I2C"]),
        // Core Motion programs ported with renames only, built in both language modes from one
        // folder (Swift5/Programs links to Swift6), run and checked by PortingTests.
        .executableTarget(name: "porting-programs", dependencies: ["Motion", "MotionSimulation"], path: "Tests/PortingPrograms/Swift6"),
        .executableTarget(
            name: "porting-programs-swift5", dependencies: ["Motion", "MotionSimulation"], path: "Tests/PortingPrograms/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "PortingTests", dependencies: ["TestSupport", "porting-programs", "porting-programs-swift5"]),
        // The README's Swift snippets, each a whole main.swift as the README prints it (ReadmeTests checks
        // that they are the README's, and runs them as a new user would).
        .executableTarget(name: "readme-snippet-1", dependencies: ["Motion", "MotionSimulation"], path: "Tests/ReadmeSnippets/readme-snippet-1"),
        .executableTarget(name: "readme-snippet-2", dependencies: ["Motion", "MotionSimulation"], path: "Tests/ReadmeSnippets/readme-snippet-2"),
    ],
    swiftLanguageModes: [.v6]
)
