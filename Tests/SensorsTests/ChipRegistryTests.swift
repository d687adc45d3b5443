import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// One chip is one descriptor: the registry's entries are consistent with each other, with the
/// drivers they build and with the simulator's own emulator registry, and identification reads
/// what it read when the chip list was a switch on names.
@Suite struct ChipRegistryTests {
    @Test func namesAndCLINamesAreUnique() {
        let names = ChipRegistry.all.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        let cliNames = ChipRegistry.all.flatMap(\.cliNames)
        #expect(Set(cliNames).count == cliNames.count, "\(cliNames)")
        for chip in ChipRegistry.all {
            #expect(!chip.cliNames.isEmpty && chip.cliNames.allSatisfy { $0 == ChipRegistry.key($0) }, "\(chip.name): \(chip.cliNames)")
            #expect(!chip.identity.value.isEmpty && !chip.identity.addresses.isEmpty, "\(chip.name)")
        }
    }

    /// The addresses and families as they were written out before the registry (a chip added
    /// later may add to them).
    @Test func usualAddressesAndFamilies() {
        #expect(Set(ChipCatalog.usualAddresses).isSuperset(of: [0x0C, 0x0D, 0x1C, 0x1E, 0x28, 0x29, 0x68, 0x69, 0x6A, 0x6B].map { I2CAddress($0) }))
        #expect(ChipCatalog.usualAddresses == ChipCatalog.usualAddresses.sorted())
        #expect(Set(ChipRegistry.families.map(\.rawValue)).isSuperset(of: [
            "InvenSense MPU", "InvenSense ICM-426xx", "ST LSM6", "ST LSM9DS1", "ST LIS3MDL", "ST LIS2MDL", "QST QMC5883L",
            "Honeywell HMC5883L", "AKM AK8963", "Bosch BMI160", "AKM AK09916", "AKM AK8975", "Bosch BNO055",
        ]))
    }

    /// The scan a board without address lists makes: every address an IMU (then a magnetometer)
    /// here can sit at, each once; within each, the addresses more chips share first, ties in
    /// registry order, and the magnetometers inside IMU packages last. The addresses the board
    /// files listed keep their order (0x68 0x69 0x6A 0x6B 0x28 0x29, then 0x1E 0x1C 0x0D 0x0C);
    /// a chip added later adds its own where its sharers put them.
    @Test func theScanOrderComesFromTheRegistry() {
        let imu = ChipRegistry.imuScanAddresses, magnetometer = ChipRegistry.magnetometerScanAddresses
        #expect(Set(imu) == Set(ChipRegistry.imus.flatMap(\.identity.addresses)) && Set(imu).count == imu.count)
        #expect(Set(magnetometer) == Set(ChipRegistry.magnetometers.flatMap(\.identity.addresses)) && Set(magnetometer).count == magnetometer.count)
        let sharers = { (chips: [ChipDescriptor], address: I2CAddress) in chips.filter { $0.identity.addresses.contains(address) }.count }
        for (a, b) in zip(imu, imu.dropFirst()) {
            #expect(sharers(ChipRegistry.imus, a) >= sharers(ChipRegistry.imus, b), "\(a) before \(b)")
        }
        let packaged = Set(ChipRegistry.imus.compactMap(\.builtInMagnetometer))
        let insidePackagesOnly = { (address: I2CAddress) in
            ChipRegistry.magnetometers.filter { $0.identity.addresses.contains(address) }.allSatisfy { packaged.contains($0.name) }
        }
        #expect(magnetometer.drop(while: { !insidePackagesOnly($0) }).allSatisfy(insidePackagesOnly))
        let listedIMU = [0x68, 0x69, 0x6A, 0x6B, 0x28, 0x29].map { I2CAddress($0) }
        let listedMagnetometer = [0x1E, 0x1C, 0x0D, 0x0C].map { I2CAddress($0) }
        #expect(imu.filter(listedIMU.contains) == listedIMU)
        #expect(magnetometer.filter(listedMagnetometer.contains) == listedMagnetometer)
    }

    /// One address and the identity reads made there: register and byte count, in order.
    struct IdentityReads: Sendable, CustomTestStringConvertible {
        var address: UInt8
        var reads: [Read]
        struct Read: Sendable { var register: UInt8; var count: Int }
        var testDescription: String { "0x" + String(address, radix: 16) }
    }

    static let identityReads: [IdentityReads] = [
        IdentityReads(address: 0x68, reads: [.init(register: 0x75, count: 1), .init(register: 0x72, count: 1), .init(register: 0x00, count: 1)]),
        IdentityReads(address: 0x69, reads: [.init(register: 0x75, count: 1), .init(register: 0x72, count: 1), .init(register: 0x00, count: 1)]),
        IdentityReads(address: 0x6A, reads: [.init(register: 0x0F, count: 1)]),
        IdentityReads(address: 0x6B, reads: [.init(register: 0x0F, count: 1)]),
        IdentityReads(address: 0x1C, reads: [.init(register: 0x0F, count: 1)]),
        IdentityReads(address: 0x1E, reads: [.init(register: 0x0F, count: 1), .init(register: 0x4F, count: 1), .init(register: 0x0A, count: 3)]),
        IdentityReads(address: 0x0D, reads: [.init(register: 0x0D, count: 1)]),
        IdentityReads(address: 0x0C, reads: [.init(register: 0x00, count: 2)]),
        IdentityReads(address: 0x28, reads: [.init(register: 0x00, count: 1)]),
        IdentityReads(address: 0x29, reads: [.init(register: 0x00, count: 1)]),
        IdentityReads(address: 0x50, reads: []),
    ]

    /// On a device that matches nothing, the identity reads at each usual address: which
    /// registers, how many bytes, in which order (as the per-address switch read them).
    @Test(arguments: identityReads)
    func identityReadsAtEachAddress(plan: IdentityReads) throws {
        let bus = ExpectationBus(plan.reads.map { .writeRead(plan.address, [$0.register], reply: [UInt8](repeating: 0, count: $0.count)) })
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(plan.address)) == nil)
        expectFinished(bus)
    }

    /// Inside an MPU-9150 the AK at 0x0C is an AK8975: one one-byte WIA read. Inside an MPU-9250
    /// the usual read of WIA1 and WIA2 names its AK8963.
    @Test func theAKInsideAPackage() throws {
        let inside9150 = ExpectationBus([.writeRead(0x0C, [0x00], reply: [0x48])])
        #expect(try ChipCatalog.identify(bus: inside9150, address: I2CAddress(0x0C), insidePackageOf: "MPU-9150")?.name == "AK8975")
        expectFinished(inside9150)
        let inside9250 = ExpectationBus([.writeRead(0x0C, [0x00], reply: [0x48, 0x01])])
        #expect(try ChipCatalog.identify(bus: inside9250, address: I2CAddress(0x0C), insidePackageOf: "MPU-9250")?.name == "AK8963")
        expectFinished(inside9250)
        #expect(ChipCatalog.builtInMagnetometer(inside: "ICM-20948") == ChipInfo(
            name: "AK09916", family: .ak09916, address: I2CAddress(0x0C), identity: [0x48, 0x09]))
        #expect(ChipCatalog.builtInMagnetometer(inside: "BMI160") == nil)
    }

    /// A magnetometer die in an IMU's package is a magnetometer of the registry, and its axes
    /// are a change of axes (one ±1 in every row and column), as the packages' datasheets give them.
    @Test func packagedMagnetometersAndTheirAxes() throws {
        for imu in ChipRegistry.imus {
            guard let packaged = imu.packagedMagnetometer else { continue }
            let magnetometer = try #require(ChipRegistry.descriptor(named: packaged.chip), "\(imu.name)")
            #expect(!magnetometer.isIMU, "\(imu.name)")
            let rows = [packaged.axes.x, packaged.axes.y, packaged.axes.z]
            let columns = (0..<3).map { column in SIMD3(rows[0][column], rows[1][column], rows[2][column]) }
            for line in rows + columns {
                let entries = [line.x, line.y, line.z]
                #expect(entries.allSatisfy { [0, 1, -1].contains($0) } && entries.filter { $0 != 0 }.count == 1, "\(imu.name): \(rows)")
            }
            #expect(packaged.behindBypass == (imu.builtInMagnetometer == packaged.chip), "\(imu.name)")
        }
        let akInMPU = AxisMatrix(SIMD3(0, 1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, -1))
        let expected: [(ChipDescriptor, String, Bool, AxisMatrix)] = [
            (.mpu9250, "AK8963", true, akInMPU), (.mpu9150, "AK8975", true, akInMPU),
            (.icm20948, "AK09916", true, AxisMatrix(SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1))),
            (.lsm9ds1, "LIS3MDL", false, AxisMatrix(SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))),
        ]
        for (imu, chip, behindBypass, axes) in expected {
            let packaged = try #require(imu.packagedMagnetometer, "\(imu.name)")
            #expect(packaged.chip == chip && packaged.behindBypass == behindBypass && packaged.axes == axes, "\(imu.name)")
        }
        #expect(ChipDescriptor.lsm9ds1.builtInMagnetometer == nil && ChipDescriptor.mpu6500.packagedMagnetometer == nil)
    }

    /// WHO_AM_I 0x6C names the LSM6DSO/DSOX unless the caller names the LSM6DSO32.
    @Test func theLSM6DSO32OnlyWhenNamed() throws {
        for lsm6dso32 in [false, true] {
            let bus = ExpectationBus([.writeRead(0x6A, [0x0F], reply: [0x6C])])
            let chip = try ChipCatalog.identify(bus: bus, address: I2CAddress(0x6A), lsm6dso32: lsm6dso32)
            #expect(chip?.name == (lsm6dso32 ? "LSM6DSO32" : "LSM6DSO/LSM6DSOX"))
            expectFinished(bus)
        }
    }

    /// `--imu ism330dhcx`: the ISM330DHCX answers WHO_AM_I 0x6B like the LSM6DSR (ST DS13012;
    /// ST's ism330dhcx_reg.h ISM330DHCX_ID 0x6B) with the same register map, so it is the
    /// LSM6DSR/ISM330DHCX descriptor, and the simulator plays it with the LSM6DSR emulator.
    @Test func theISM330DHCXIsTheLSM6DSRDescriptor() throws {
        let chip = try #require(ChipRegistry.descriptor(cliName: "ISM330DHCX"))
        #expect(chip.name == "LSM6DSR/ISM330DHCX" && chip.identity.register == 0x0F && chip.identity.value == [0x6B])
        #expect(chip.gyroscopeRanges.contains(4000))
        #expect(SimulatedBoard.IMU(name: "ism330dhcx") == .lsm6dsr)
        let board = SimulatedBoard(imu: .lsm6dsr, magnetometer: .none, source: ConstantSource(), now: { 0 })
        #expect(try ChipCatalog.identify(bus: board.bus, address: board.imuAddress)?.name == chip.name)
    }

    /// Every name the simulator takes for an IMU (`--imu`, board files) is a chip's CLI name here,
    /// and every IMU here has an emulator: the two registries, kept apart (the simulator does not
    /// import the drivers), list the same chips.
    @Test func theEmulatorRegistryNamesTheSameIMUs() {
        let emulated = Set(EmulatorRegistry.imus.flatMap { [$0.chip.rawValue] + $0.aliases })
        let described = Set(ChipRegistry.imus.flatMap(\.cliNames))
        #expect(emulated == described)
        let magnetometers = Set(EmulatorRegistry.magnetometers.map(\.chip.rawValue))
        #expect(magnetometers.isSubset(of: Set(ChipRegistry.magnetometers.flatMap(\.cliNames))))
    }

    /// Each emulated IMU is identified as the descriptor its name gives, whose factory builds a
    /// driver for it, with the descriptor's FIFO, tables and output delay.
    @Test(arguments: SimulatedBoard.IMU.allCases)
    func eachEmulatedIMUMatchesItsDescriptor(imu: SimulatedBoard.IMU) throws {
        let descriptor = try #require(ChipRegistry.descriptor(cliName: imu.rawValue))
        let board = SimulatedBoard(imu: imu, magnetometer: .none, source: ConstantSource(), now: { 0 })
        let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: board.imuAddress, lsm6dso32: imu == .lsm6dso32))
        #expect(chip.name == descriptor.name && chip.family == descriptor.family && chip.isIMU)
        #expect(descriptor.identity.addresses == imu.possibleAddresses)
        let driver = try #require(descriptor.makeIMU(bus: board.bus, address: chip.address, pause: .none))
        #expect(driver.chip == chip)
        #expect((descriptor.fifo != nil) == driver.hasFIFO)
        let defaults = driver.defaultConfiguration
        #expect(descriptor.outputDataRates.contains(defaults.outputDataRate))
        #expect(descriptor.accelerometerRanges.contains(defaults.accelerometerRange))
        // An accelerometer alone (the ADXL345) has no gyroscope range; its driver ignores the configuration's.
        #expect(!descriptor.hasGyroscope || descriptor.gyroscopeRanges.contains(defaults.gyroscopeRange))
        try driver.configure(defaults)
        switch descriptor.outputDelay {
        case .none: #expect(driver.outputDelay == 0)
        case .byLowPassCode(let delays): #expect(delays.values.contains(driver.outputDelay))
        case .byOutputDataRate(let delays): #expect(delays[defaults.outputDataRate] == driver.outputDelay)
        }
        #expect(ChipCatalog.makeMagnetometer(for: chip, bus: board.bus) == nil)
    }

    /// Each separate magnetometer is identified as its descriptor, whose factory builds its driver.
    @Test(arguments: SimulatedBoard.Magnetometer.allCases)
    func eachEmulatedMagnetometerMatchesItsDescriptor(magnetometer: SimulatedBoard.Magnetometer) throws {
        let descriptor = try #require(ChipRegistry.descriptor(cliName: magnetometer.rawValue))
        let board = SimulatedBoard(imu: .mpu6050, magnetometer: .chip(magnetometer), source: ConstantSource(), now: { 0 })
        let address = try #require(board.magnetometerAddress)
        let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: address))
        #expect(chip == descriptor.chip(at: address) && !chip.isIMU)
        #expect(descriptor.identity.addresses == magnetometer.possibleAddresses)
        let driver = try #require(ChipCatalog.makeMagnetometer(for: chip, bus: board.bus, pause: .none))
        #expect(driver.chip == chip && descriptor.magnetometerRanges.contains(driver.defaultConfiguration.range))
        #expect(ChipCatalog.makeIMU(for: chip, bus: board.bus) == nil)
    }

    /// The datasheet limits moved from the hardware checks' switch, values and citations unchanged.
    @Test func restLimitsKeepTheirDatasheetValues() throws {
        let mpu6050 = try #require(ChipDescriptor.mpu6050.gyroRestLimits)
        #expect(mpu6050.biasDPS == 20 && mpu6050.noiseDensityDPS == 0.005)
        #expect(mpu6050.source == "PS-MPU-6000A §6.1: ZRO tolerance ±20 °/s, 0.005 °/s/√Hz")
        #expect(ChipDescriptor.lsm6dso32.gyroRestLimits == ChipDescriptor.lsm6dso.gyroRestLimits)
        #expect(ChipDescriptor.mpu9150.gravityRestTolerance?.tolerance == 0.11 && ChipDescriptor.mpu6500.gravityRestTolerance == nil)
        let withLimits = ChipRegistry.imus.filter { $0.gyroRestLimits != nil }.map(\.name)
        #expect(Set(withLimits).isSuperset(of: [
            "MPU-6050", "MPU-9150", "MPU-6500", "MPU-9250", "ICM-42688-P", "ICM-20948", "LSM6DSO/LSM6DSOX", "LSM6DSO32",
            "LSM6DS3TR-C/LSM6DSL/LSM6DSM", "BMI160", "LSM6DS3",
        ]))
        #expect(ChipDescriptor.lsm6dsr.gyroRestLimits == nil && ChipDescriptor.lsm9ds1.gyroRestLimits == nil && ChipDescriptor.bno055.gyroRestLimits == nil)
        #expect(ChipCatalog.stretchesClock(ChipDescriptor.bno055.chip(at: I2CAddress(0x28))))
        #expect(!ChipCatalog.stretchesClock(ChipDescriptor.lsm6dso.chip(at: I2CAddress(0x6A))))
    }
}
