import I2C
@testable import MotionSimulator
@testable import Sensors
import Testing

/// Every chip constant checked against a second, independent reading: the values the Linux
/// kernel's IIO driver for the chip uses (typed in here from the kernel sources named in each
/// entry, torvalds/linux), or the datasheet section where the kernel has no driver for the chip or
/// does not touch the setting. The drivers' tables (Sources/Sensors) and the emulators' own
/// constants (Sources/MotionSimulator) are both compared with it, so a constant copied wrongly
/// into either side fails here, not on somebody's board. Versions read: st_lsm6dsx_core.c at
/// torvalds/linux 007f2eb, inv_mpu_iio.h at 0b70c08, inv_icm42600.h at 05909cd and
/// inv_icm42600_core.c at 0792c19 (see ``icm42688``), ak8975.c at ff83a68, inv_mpu_magn.c at
/// 2555693, st_magn_core.c at 6b658c3, qmc5883l.c at 67f8bc8. Mainline st_lsm6dsx has no
/// LSM6DSO32 entry (none in st_lsm6dsx.h's st_lsm6dsx_hw_id at ffb4b4e either; the lsm6dso32 in
/// other trees is ST's out-of-tree st_lsm6dsox driver), so that chip's full scales are its datasheet's.
///
/// Units are the kernel's own, converted only here: ST drivers state sensitivities as the
/// datasheet's µg/LSB (`IIO_G_TO_M_S_2(61)`), µdps/LSB (`IIO_DEGREE_TO_RAD(8750)`) and
/// µgauss/LSB; inv_mpu6050 states them in SI (µm/s² and nrad/s per LSB, rounded to integers and
/// — for the gyroscope — computed by the kernel from 131.1…16.4 LSB/(°/s), 0.1 % off the
/// datasheet's 131: the tolerance for that driver is 0.2 %); hmc5843 as 10⁷ / gain.
@Suite struct KernelCrossCheckTests {
    /// A full scale: the field code as the kernel writes it (already shifted into place in the
    /// register) and the sensitivity in µunits of the driver's own unit per LSB (µg, µdps, µT).
    struct Scale {
        var range: Double
        var registerBits: UInt8
        var microPerLSB: Double
    }

    /// Where a chip says who it is and where its samples sit: the same five facts on the kernel's
    /// side (``IMUFacts``) and on our driver's (``DriverIMU``).
    struct RegisterLayout: Equatable {
        /// WHO_AM_I's address and value; the first data register of each sensor.
        var identityRegister, identity, accelerometerData, gyroscopeData: UInt8
        var bigEndian: Bool

        init(whoAmI identityRegister: UInt8, identity: UInt8, accelerometer: UInt8, gyroscope: UInt8, bigEndian: Bool) {
            (self.identityRegister, self.identity, accelerometerData, gyroscopeData, self.bigEndian) =
                (identityRegister, identity, accelerometer, gyroscope, bigEndian)
        }
    }

    @dynamicMemberLookup
    struct IMUFacts {
        var model: String
        var source: String
        var layout: RegisterLayout
        /// Output data rate (Hz) → register bits, as far as the kernel's table goes.
        var rates: [(hz: Double, registerBits: UInt8)]
        var rateRegister: UInt8
        var accelerometerRangeRegister: UInt8
        var gyroscopeRangeRegister: UInt8
        var accelerometer: [Scale]
        var gyroscope: [Scale]
        var relativeTolerance: Double

        subscript<Value>(dynamicMember keyPath: KeyPath<RegisterLayout, Value>) -> Value { layout[keyPath: keyPath] }
    }

    // MARK: IMUs

    /// st_lsm6dsx: drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c, st_lsm6dsx_sensor_settings[]
    /// (WHO_AM_I 0x0f; odr_table ACC 0x10 / GYRO 0x11 GENMASK(7, 4) with codes 1…6 for
    /// 12.5…416 Hz; fs_table ACC 0x10 GENMASK(3, 2) {61, 122, 244, 488 µg} = {0x0, 0x2, 0x3, 0x1};
    /// GYRO 0x11 GENMASK(3, 2) {8750, 17500, 35000, 70000 µdps} = {0x0, 0x1, 0x2, 0x3}; channels
    /// st_lsm6dsx_acc_channels at 0x28 and st_lsm6dsx_gyro_channels at 0x22, little-endian).
    static func lsm6(_ model: LSM6Model, identity: UInt8, accelerometer: [Scale]) -> IMUFacts {
        IMUFacts(
            model: model.rawValue, source: "drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c",
            layout: RegisterLayout(whoAmI: 0x0F, identity: identity, accelerometer: 0x28, gyroscope: 0x22, bigEndian: false),
            rates: [12.5, 26, 52, 104, 208, 416].enumerated().map { ($1, UInt8($0 + 1) << 4) },
            rateRegister: 0x10, accelerometerRangeRegister: 0x10, gyroscopeRangeRegister: 0x11,
            accelerometer: accelerometer,
            // ±125 °/s (FS_125, CTRL2_G bit 1) is not in the kernel's table: LSM6DSO datasheet
            // DS12814 Table 2 (4.375 mdps/LSB) and §9.16 (CTRL2_G), the same in DS11889 and LSM6DS3.
            gyroscope: [Scale(range: 125, registerBits: 0b10, microPerLSB: 4375)]
                + zip([250.0, 500, 1000, 2000], [8750.0, 17500, 35000, 70000]).enumerated()
                .map { Scale(range: $1.0, registerBits: UInt8($0) << 2, microPerLSB: $1.1) },
            relativeTolerance: 1e-9)
    }

    static let lsm6Accelerometer = [
        Scale(range: 2, registerBits: 0x0 << 2, microPerLSB: 61), Scale(range: 4, registerBits: 0x2 << 2, microPerLSB: 122),
        Scale(range: 8, registerBits: 0x3 << 2, microPerLSB: 244), Scale(range: 16, registerBits: 0x1 << 2, microPerLSB: 488),
    ]

    /// inv_mpu6050: drivers/iio/imu/inv_mpu6050/inv_mpu_iio.h (INV_MPU6050_REG_WHOAMI 117,
    /// WHOAMI values 0x68 / 0x70 / 0x71, REG_RAW_ACCEL 0x3B, REG_RAW_GYRO 0x43, ACCEL_CONFIG 0x1C
    /// and GYRO_CONFIG 0x1B with FSR shift 3, SMPLRT_DIV 0x19 = 1000 / rate − 1
    /// (INV_MPU6050_FIFO_RATE_TO_DIVIDER)) and inv_mpu_core.c (accel_scale[] = {598, 1196, 2392,
    /// 4785} µm/s², gyro_scale_6050[] = {133090, 266181, 532362, 1064724} nrad/s per LSB),
    /// big-endian registers.
    static func invenSense(_ model: InvenSenseModel, identity: UInt8) -> IMUFacts {
        let standardGravity = 9.80665
        let microDPSPerNanoRadian = 180 / Double.pi / 1000
        return IMUFacts(
            model: model.rawValue, source: "drivers/iio/imu/inv_mpu6050/inv_mpu_iio.h, inv_mpu_core.c",
            layout: RegisterLayout(whoAmI: 0x75, identity: identity, accelerometer: 0x3B, gyroscope: 0x43, bigEndian: true),
            rates: [1000, 500, 200, 100, 50, 10, 4].map { ($0, UInt8(1000 / $0 - 1)) },
            rateRegister: 0x19, accelerometerRangeRegister: 0x1C, gyroscopeRangeRegister: 0x1B,
            accelerometer: zip([2.0, 4, 8, 16], [598.0, 1196, 2392, 4785]).enumerated()
                .map { Scale(range: $1.0, registerBits: UInt8($0) << 3, microPerLSB: $1.1 / standardGravity) },
            gyroscope: zip([250.0, 500, 1000, 2000], [133090.0, 266181, 532362, 1064724]).enumerated()
                .map { Scale(range: $1.0, registerBits: UInt8($0) << 3, microPerLSB: $1.1 * microDPSPerNanoRadian) },
            relativeTolerance: 0.002)
    }

    /// bmi160: drivers/iio/imu/bmi160/bmi160_core.c (BMI160_REG_CHIP_ID 0x00 = BMI160_CHIP_ID_VAL
    /// 0xD1; BMI160_REG_DATA_GYRO_XOUT_L 0x0C, BMI160_REG_DATA_ACCEL_XOUT_L 0x12, IIO_LE;
    /// BMI160_REG_ACCEL_CONFIG 0x40 ODR_MASK GENMASK(3, 0) with bmi160_accel_odr[] {0x06 25 Hz …
    /// 0x0C 1600 Hz} (0x01…0x05 = 0.78125…12.5 Hz and the gyroscope's 0x0D = 3200 Hz are outside
    /// the shared table the driver offers); BMI160_REG_ACCEL_RANGE 0x41 = 0x03/0x05/0x08/0x0C with
    /// bmi160_accel_scale[] {598, 1197, 2394, 4788} µm/s² per LSB; BMI160_REG_GYRO_RANGE 0x43 =
    /// 0…4 for ±2000…125 °/s with bmi160_gyro_scale[] {1065, 532, 266, 133, 66} µrad/s per LSB).
    /// The kernel's scales are the datasheet's 16384…2048 LSB/g and 16.4…262.4 LSB/(°/s) rounded
    /// to whole µunits: 66 µrad/s for ±125 °/s is 0.78 % below 1 / 262.4 °/s, hence 0.8 %.
    static let bmi160 = IMUFacts(
        model: "BMI160", source: "drivers/iio/imu/bmi160/bmi160_core.c",
        layout: RegisterLayout(whoAmI: 0x00, identity: 0xD1, accelerometer: 0x12, gyroscope: 0x0C, bigEndian: false),
        rates: [25.0, 50, 100, 200, 400, 800, 1600].enumerated().map { ($1, UInt8($0 + 6)) },
        rateRegister: 0x40, accelerometerRangeRegister: 0x41, gyroscopeRangeRegister: 0x43,
        accelerometer: zip([2.0, 4, 8, 16], zip([UInt8(0x03), 0x05, 0x08, 0x0C], [598.0, 1197, 2394, 4788]))
            .map { Scale(range: $0, registerBits: $1.0, microPerLSB: $1.1 / 9.80665) },
        gyroscope: zip([2000.0, 1000, 500, 250, 125], [1065.0, 532, 266, 133, 66]).enumerated()
            .map { Scale(range: $1.0, registerBits: UInt8($0), microPerLSB: $1.1 * 180 / Double.pi) },
        relativeTolerance: 0.008)

    /// bmi270: drivers/iio/imu/bmi270/bmi270_core.c (torvalds/linux, read at 16c94de; not in
    /// Debian's 6.1 kernel): BMI270_CHIP_ID_REG 0x00 = BMI270_CHIP_ID_VAL 0x24, BMI270_ACCEL_X_REG
    /// 0x0c, BMI270_ANG_VEL_X_REG 0x12, IIO_LE; BMI270_ACC_CONF_REG 0x40 ODR_MSK GENMASK(3, 0)
    /// with bmi270_accel_odr_vals 0x06…0x0C for 25…1600 Hz (the gyroscope's table starts at 0x06
    /// = 25 Hz too); BMI270_ACC_CONF_RANGE_REG 0x41 GENMASK(1, 0) = 0…3 with bmi270_accel_scale[]
    /// {598, 1197, 2394, 4788} µm/s² per LSB; BMI270_GYR_CONF_RANGE_REG 0x43 GENMASK(2, 0) = 0…4
    /// for ±2000…125 °/s with bmi270_gyro_scale[] {1065, 532, 266, 133, 66} µrad/s per LSB (the
    /// BMI160's, rounded alike: 0.8 %).
    static let bmi270 = IMUFacts(
        model: "BMI270", source: "drivers/iio/imu/bmi270/bmi270_core.c",
        layout: RegisterLayout(whoAmI: 0x00, identity: 0x24, accelerometer: 0x0C, gyroscope: 0x12, bigEndian: false),
        rates: [25.0, 50, 100, 200, 400, 800, 1600].enumerated().map { ($1, UInt8($0 + 6)) },
        rateRegister: 0x40, accelerometerRangeRegister: 0x41, gyroscopeRangeRegister: 0x43,
        accelerometer: zip([2.0, 4, 8, 16], [598.0, 1197, 2394, 4788]).enumerated()
            .map { Scale(range: $1.0, registerBits: UInt8($0), microPerLSB: $1.1 / 9.80665) },
        gyroscope: zip([2000.0, 1000, 500, 250, 125], [1065.0, 532, 266, 133, 66]).enumerated()
            .map { Scale(range: $1.0, registerBits: UInt8($0), microPerLSB: $1.1 * 180 / Double.pi) },
        relativeTolerance: 0.008)

    /// st_lsm6dsx_core.c at 007f2eb, the entry with .wai = 0x68 (ST_LSM9DS1_ID): reset and BDU in
    /// 0x22; gyroscope channels st_lsm6ds0_gyro_channels at 0x18, accelerometer at 0x28,
    /// little-endian; odr_table GYRO 0x10 GENMASK(7, 5) {14900…952000 mHz} = 1…6 (with the gyroscope
    /// on, the accelerometer runs at its rate); fs_table ACC 0x20 GENMASK(4, 3) {61, 122, 244, 732 µg}
    /// = {0x0, 0x2, 0x3, 0x1}, GYRO 0x10 GENMASK(4, 3) {8750, 17500, 70000 µdps} = {0x0, 0x1, 0x3}.
    static let lsm9ds1 = IMUFacts(
        model: LSM9DS1IMU.name, source: "drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c",
        layout: RegisterLayout(whoAmI: 0x0F, identity: 0x68, accelerometer: 0x28, gyroscope: 0x18, bigEndian: false),
        rates: [14.9, 59.5, 119, 238, 476, 952].enumerated().map { ($1, UInt8($0 + 1) << 5) },
        rateRegister: 0x10, accelerometerRangeRegister: 0x20, gyroscopeRangeRegister: 0x10,
        accelerometer: zip([2.0, 4, 8, 16], zip([UInt8(0x0), 0x2, 0x3, 0x1], [61.0, 122, 244, 732]))
            .map { Scale(range: $0, registerBits: $1.0 << 3, microPerLSB: $1.1) },
        gyroscope: zip([245.0, 500, 2000], zip([UInt8(0x0), 0x1, 0x3], [8750.0, 17500, 70000]))
            .map { Scale(range: $0, registerBits: $1.0 << 3, microPerLSB: $1.1) },
        relativeTolerance: 1e-9)
    /// inv_icm42600: drivers/iio/imu/inv_icm42600/inv_icm42600.h (REG_WHOAMI 0x0075,
    /// WHOAMI_ICM42688 0x47 and the INV_CHIP_ICM42688 entry of inv_icm42600_hw[] in
    /// inv_icm42600_core.c as of 0792c19 — the header at 05909cd predates the ICM-42688; REG_ACCEL_DATA_X
    /// 0x001F, REG_GYRO_DATA_X 0x0025, "all sensor data are 16 bits … in big-endian";
    /// ACCEL_CONFIG0 0x0050 and GYRO_CONFIG0 0x004F with FS GENMASK(7, 5) and ODR GENMASK(3, 0);
    /// enum inv_icm42600_odr: 8 kHz = 3 … 12.5 Hz = 11, 500 Hz = 15, confirmed by
    /// inv_icm42600_odr_to_period()), inv_icm42600_accel.c (inv_icm42600_accel_scale[]: 4788403,
    /// 2394202, 1197101, 598550 nm/s² per LSB for ±16/8/4/2 g = FS 0…3) and inv_icm42600_gyro.c
    /// (inv_icm42600_gyro_scale[]: 1065264 … 8322 nrad/s per LSB for ±2000 … ±15.625 °/s = FS 0…7).
    /// The kernel's gyroscope scales are 32768 / full scale exactly; the datasheet's 16.4 … 2097.2
    /// LSB/(°/s) are rounded (16.4 vs 16.384: 0.1 %), so the tolerance is 0.2 %.
    static let icm42688: IMUFacts = {
        let standardGravity = 9.80665
        let microDPSPerNanoRadian = 180 / Double.pi / 1000
        return IMUFacts(
            model: ICM42600Model.icm42688p.rawValue,
            source: "drivers/iio/imu/inv_icm42600/inv_icm42600.h, inv_icm42600_core.c, inv_icm42600_accel.c, inv_icm42600_gyro.c",
            layout: RegisterLayout(whoAmI: 0x75, identity: 0x47, accelerometer: 0x1F, gyroscope: 0x25, bigEndian: true),
            rates: [(8000, 3), (4000, 4), (2000, 5), (1000, 6), (200, 7), (100, 8), (50, 9), (25, 10), (12.5, 11), (500, 15)],
            rateRegister: 0x50, accelerometerRangeRegister: 0x50, gyroscopeRangeRegister: 0x4F,
            accelerometer: zip([16.0, 8, 4, 2], [4788403.0, 2394202, 1197101, 598550]).enumerated()
                .map { Scale(range: $1.0, registerBits: UInt8($0) << 5, microPerLSB: $1.1 / 1000 / standardGravity) },
            gyroscope: zip([2000.0, 1000, 500, 250, 125, 62.5, 31.25, 15.625], [1065264.0, 532632, 266316, 133158, 66579, 33290, 16645, 8322])
                .enumerated().map { Scale(range: $1.0, registerBits: UInt8($0) << 5, microPerLSB: $1.1 * microDPSPerNanoRadian) },
            relativeTolerance: 0.002)
    }()

    static let imus: [IMUFacts] = [
        lsm6(.lsm6ds3, identity: 0x69, accelerometer: lsm6Accelerometer),
        lsm6(.lsm6dsl, identity: 0x6A, accelerometer: lsm6Accelerometer),
        lsm6(.lsm6dso, identity: 0x6C, accelerometer: lsm6Accelerometer),
        // No mainline LSM6DSO32 entry (see above): its full scales come from the LSM6DSO32 datasheet
        // DS13238 Table 2 (±4/8/16/32 g at 0.122/0.244/0.488/0.976 mg/LSB, FS_XL 00/10/11/01); the
        // rest is the LSM6DSO's, which DS13238's register map repeats.
        {
            var facts = lsm6(.lsm6dso32, identity: 0x6C, accelerometer: [
                Scale(range: 4, registerBits: 0x0 << 2, microPerLSB: 122), Scale(range: 8, registerBits: 0x2 << 2, microPerLSB: 244),
                Scale(range: 16, registerBits: 0x3 << 2, microPerLSB: 488), Scale(range: 32, registerBits: 0x1 << 2, microPerLSB: 976),
            ])
            facts.source = "LSM6DSO32 datasheet DS13238 Table 2 (full scales; no mainline kernel entry); st_lsm6dsx_core.c (the rest)"
            return facts
        }(),
        // The 0x6b entry (LSM6DSR, ISM330DHCX, LSM6DSRX): the LSM6DSO's tables; its ±4000 dps
        // (FS_4000, CTRL2_G bit 0, 140 mdps/LSB) is not in the kernel read here: LSM6DSR DS12412 Table 2.
        {
            var facts = lsm6(.lsm6dsr, identity: 0x6B, accelerometer: lsm6Accelerometer)
            facts.gyroscope.append(Scale(range: 4000, registerBits: 0b01, microPerLSB: 140_000))
            return facts
        }(),
        invenSense(.mpu6050, identity: 0x68),
        invenSense(.mpu6500, identity: 0x70),
        // inv_mpu_iio.h INV_MPU9150_WHOAMI_VALUE 0x68; inv_mpu_core.c hw_info "MPU9150": reg_set_6050,
        // chip_config_6050 (the MPU-6050's registers and scales).
        invenSense(.mpu9150, identity: 0x68),
        invenSense(.mpu9250, identity: 0x71),
        bmi160,
        bmi270,
        lsm9ds1,
        icm42688,
        icm20948,
    ]

    /// ICM-20948: no driver in the kernel read here (inv_mpu_iio.h `enum inv_devices` lists the
    /// MPU-6xxx/9xxx, ICM-20600/20602/20608/20608D/20609/20689/20690 and IAM-20680, not the
    /// banked ICM-20948; no other IIO driver names it), so the datasheet DS-000189
    /// rev 1.3: §7 register map (bank 0 WHO_AM_I 0x00 = 0xEA, ACCEL_XOUT_H 0x2D, GYRO_XOUT_H
    /// 0x33, big-endian; bank 2 GYRO_SMPLRT_DIV 0x00 = 1100 / rate − 1, GYRO_CONFIG_1 0x01 and
    /// ACCEL_CONFIG 0x14 with FS_SEL in bits 2:1), §3.1–3.2 sensitivities 131/65.5/32.8/16.4
    /// LSB/(°/s) and 16384/8192/4096/2048 LSB/g. The bank-2 fields are written with FCHOICE
    /// (bit 0) set, as the datasheet's DLPF path needs; the range bits alone are compared here.
    static let icm20948 = IMUFacts(
        model: "ICM-20948", source: "ICM-20948 datasheet DS-000189 §3, §7 (no kernel driver)",
        layout: RegisterLayout(whoAmI: 0x00, identity: 0xEA, accelerometer: 0x2D, gyroscope: 0x33, bigEndian: true),
        rates: [1100, 550, 220, 100, 50, 10].map { ($0, UInt8(1100 / $0 - 1)) },
        rateRegister: 0x00, accelerometerRangeRegister: 0x14, gyroscopeRangeRegister: 0x01,
        accelerometer: zip([2.0, 4, 8, 16], [16384.0, 8192, 4096, 2048]).enumerated()
            .map { Scale(range: $1.0, registerBits: UInt8($0) << 1, microPerLSB: 1e6 / $1.1) },
        gyroscope: zip([250.0, 500, 1000, 2000], [131.0, 65.5, 32.8, 16.4]).enumerated()
            .map { Scale(range: $1.0, registerBits: UInt8($0) << 1, microPerLSB: 1e6 / $1.1) },
        relativeTolerance: 1e-9)

    /// Our driver's side of one IMU: identity and data registers, the rate and range fields, tables.
    struct DriverIMU {
        var layout: RegisterLayout
        var rateField: RegisterField
        var accelerometerField: RegisterField
        var gyroscopeField: RegisterField
        var tables: IMUTables

        /// A driver whose rate and ranges are fields of its register map (`rate`: the field the
        /// kernel's odr_table names).
        init(_ layout: RegisterLayout, rate: KeyPath<IMURegisterMap, RegisterField> = \.accelerometerRate, map: IMURegisterMap, tables: IMUTables) {
            self.init(layout, rate: map[keyPath: rate], accelerometer: map.accelerometerRange, gyroscope: map.gyroscopeRange, tables: tables)
        }

        init(_ layout: RegisterLayout, rate: RegisterField, accelerometer: RegisterField, gyroscope: RegisterField, tables: IMUTables) {
            (self.layout, rateField, accelerometerField, gyroscopeField, self.tables) = (layout, rate, accelerometer, gyroscope, tables)
        }
    }

    static func driver(_ model: String) -> DriverIMU? {
        if let model = LSM6Model(rawValue: model) {
            let settings = LSM6Settings.settings(for: model)
            // The driver reads one burst from OUT_TEMP_L: gyroscope at +2, accelerometer at +8.
            let burst = LSM6Register.outTempL
            return DriverIMU(RegisterLayout(whoAmI: LSM6Register.whoAmI, identity: settings.identity, accelerometer: burst + 8, gyroscope: burst + 2,
                                            bigEndian: false), map: LSM6Register.st.map, tables: settings.tables)
        }
        if let model = InvenSenseModel(rawValue: model) {
            // One burst from ACCEL_XOUT_H: accelerometer at +0, temperature, gyroscope at +8.
            let burst = InvenSenseRegister.accelXHigh
            return DriverIMU(RegisterLayout(whoAmI: InvenSenseRegister.whoAmI, identity: InvenSenseSettings.settings(for: model).identity,
                                            accelerometer: burst, gyroscope: burst + 8, bigEndian: true),
                             rate: RegisterField(InvenSenseRegister.sampleRateDivider, mask: 0xFF), accelerometer: InvenSenseRegister.accelRangeField,
                             gyroscope: InvenSenseRegister.gyroRangeField, tables: InvenSenseSettings.tables)
        }
        if model == LSM9DS1IMU.name {
            let settings = LSM9DS1Settings()
            return DriverIMU(RegisterLayout(whoAmI: LSM9DS1Register.whoAmI, identity: settings.identity, accelerometer: LSM9DS1Register.outXLXL,
                                            gyroscope: LSM9DS1Register.outXLG, bigEndian: false),
                             rate: \.gyroscopeRate, map: LSM9DS1Register.st.map, tables: settings.tables)
        }
        if model == BMI160Settings.name {
            // One burst from DATA_8 (gyroscope, 0x0C): gyroscope at +0, accelerometer at +6.
            let burst = BMI160Register.gyroscopeData
            return DriverIMU(RegisterLayout(whoAmI: BMI160Register.chipID, identity: BMI160Settings.identity, accelerometer: burst + 6, gyroscope: burst,
                                            bigEndian: false), map: BMI160Register.map, tables: BMI160Settings.tables)
        }
        if model == BMI270Settings.name {
            // One burst from DATA_8 (accelerometer, 0x0C): accelerometer at +0, gyroscope at +6.
            let burst = BMI270Register.accelerometerData
            return DriverIMU(RegisterLayout(whoAmI: BMI270Register.chipID, identity: BMI270Settings.identity, accelerometer: burst, gyroscope: burst + 6,
                                            bigEndian: false), map: BMI270Register.map, tables: BMI270Settings.tables)
        }
        if let model = ICM42600Model(rawValue: model) {
            // One burst from TEMP_DATA1: accelerometer at +2, gyroscope at +8.
            let settings = ICM42600Settings.settings(for: model), burst = ICM42600Register.temperatureHigh
            return DriverIMU(RegisterLayout(whoAmI: ICM42600Register.whoAmI, identity: settings.identity, accelerometer: burst + 2, gyroscope: burst + 8,
                                            bigEndian: true), map: ICM42600Register.map, tables: settings.tables)
        }
        if model == ICM20948Settings.name {
            // One burst from ACCEL_XOUT_H (bank 0): accelerometer at +0, gyroscope at +6.
            let burst = ICM20948Register.accelXHigh, range = ICM20948Register.rangeField.mask
            return DriverIMU(RegisterLayout(whoAmI: ICM20948Register.whoAmI, identity: ICM20948Settings.identity, accelerometer: burst, gyroscope: burst + 6,
                                            bigEndian: true),
                             rate: RegisterField(ICM20948Register.gyroSampleRateDivider, mask: 0xFF),
                             accelerometer: RegisterField(ICM20948Register.accelConfig, mask: range),
                             gyroscope: RegisterField(ICM20948Register.gyroConfig1, mask: range), tables: ICM20948Settings.tables)
        }
        return nil
    }

    @Test(arguments: imus.map(\.model))
    func imuDriverTablesMatchTheKernel(_ model: String) throws {
        let facts = try #require(Self.imus.first { $0.model == model })
        let ours = try #require(Self.driver(model), "no driver for \(model)")
        let context = "\(model) vs \(facts.source)"
        #expect(ours.layout == facts.layout, "WHO_AM_I, data registers and byte order \(context)")
        #expect(ours.rateField.address == facts.rateRegister, "rate register \(context)")
        #expect(ours.accelerometerField.address == facts.accelerometerRangeRegister, "accelerometer range register \(context)")
        #expect(ours.gyroscopeField.address == facts.gyroscopeRangeRegister, "gyroscope range register \(context)")
        for rate in facts.rates {
            let option = ours.tables.outputDataRates.first { $0.value == rate.hz }
            #expect(option.map { ours.rateField.setting($0.code, in: 0) } == rate.registerBits, "\(rate.hz) Hz \(context)")
        }
        for (kernel, table, field, unit) in [
            (facts.accelerometer, ours.tables.accelerometerRanges, ours.accelerometerField, "g"),
            (facts.gyroscope, ours.tables.gyroscopeRanges, ours.gyroscopeField, "°/s"),
        ] {
            #expect(table.map(\.value).sorted() == kernel.map(\.range).sorted(), "\(unit) full scales \(context)")
            for scale in kernel {
                let option = try #require(table.first { $0.value == scale.range }, "±\(scale.range) \(unit) \(context)")
                #expect(field.setting(option.code, in: 0) == scale.registerBits, "±\(scale.range) \(unit) code \(context)")
                let microPerLSB = 1e6 / option.sensitivity
                #expect(abs(microPerLSB / scale.microPerLSB - 1) <= facts.relativeTolerance,
                        "±\(scale.range) \(unit): ours \(microPerLSB) µ\(unit)/LSB, kernel \(scale.microPerLSB) \(context)")
            }
        }
    }

    /// Each kernel scale against an emulator's own sensitivity for its code (`microPerLSB`, in µ of
    /// `unit` per LSB), within `tolerance`.
    static func expect(_ scales: [Scale], _ unit: String, of imu: SimulatedBoard.IMU, within tolerance: Double,
                       sourceLocation: SourceLocation = #_sourceLocation, microPerLSB: (Scale) throws -> Double) throws {
        for scale in scales {
            let emulator = try microPerLSB(scale)
            #expect(abs(emulator / scale.microPerLSB - 1) <= tolerance,
                    "\(imu) ±\(scale.range) \(unit): emulator \(emulator) µ\(unit)/LSB, kernel \(scale.microPerLSB)", sourceLocation: sourceLocation)
        }
    }

    /// The emulators answer WHO_AM_I with the kernel's value at the kernel's register, and their
    /// own sensitivity tables (written from the datasheets, indexed by register code) agree.
    @Test(arguments: SimulatedBoard.IMU.allCases)
    func imuEmulatorsMatchTheKernel(_ imu: SimulatedBoard.IMU) throws {
        if imu == .bno055 { return try bno055EmulatorMatchesTheKernel() }  // its own facts, below
        if imu == .adxl345 { return try adxl345EmulatorMatchesTheKernel() }  // ADXL345KernelFactsTests.swift
        if imu == .icm45686 { return try icm45686EmulatorMatchesTheKernel() }  // ICM45686KernelFactsTests.swift
        // torvalds/linux has no BNO08x driver (drivers/iio/imu/bno055/ is the BNO055's alone), and
        // the hub has no registers to compare: its facts are checked against the manuals in BNO08xTests.
        if imu == .bno08x { return }
        // The kernel's LSM6DSV/LSM6DSV16X entry (st_lsm6dsx_core.c, `.wai = 0x70`) came after
        // Debian's 6.1: no kernel tier; LSM6DSV16XTests checks the emulator against DS13510.
        if imu == .lsm6dsv16x { return }
        let model = switch imu {
        case .lsm6dsox: LSM6Model.lsm6dso.rawValue
        case .lsm6dso32: LSM6Model.lsm6dso32.rawValue
        case .lsm6dsl: LSM6Model.lsm6dsl.rawValue
        case .lsm6ds3: LSM6Model.lsm6ds3.rawValue
        case .lsm6dsr: LSM6Model.lsm6dsr.rawValue
        case .mpu6050: InvenSenseModel.mpu6050.rawValue
        case .mpu6500: InvenSenseModel.mpu6500.rawValue
        case .mpu9150: InvenSenseModel.mpu9150.rawValue
        case .mpu9250: InvenSenseModel.mpu9250.rawValue
        case .bmi160: BMI160Settings.name
        case .bmi270: BMI270Settings.name
        case .lsm9ds1: LSM9DS1IMU.name
        case .icm42688: ICM42600Model.icm42688p.rawValue
        case .icm20948: "ICM-20948"
        case .bno055: BNO055Settings.name
        default: "no kernel model written here for \(imu)"
        }
        let facts = try #require(Self.imus.first { $0.model == model })
        let board = SimulatedBoard(imu: imu, magnetometer: .none, source: atRest, now: { 0 })
        #expect(try board.bus.readRegister(imu.usualAddress, facts.identityRegister) == facts.identity, "\(imu) WHO_AM_I")
        switch imu {
        case .lsm6dsox, .lsm6dso32, .lsm6dsl, .lsm6ds3, .lsm6dsr:
            #expect(LSM6Chip.outXLA == facts.accelerometerData && LSM6Chip.outXLG == facts.gyroscopeData)
            let accelerometer = imu == .lsm6dso32 ? LSM6Chip.accelSensitivityDSO32 : LSM6Chip.accelSensitivity
            try Self.expect(facts.accelerometer, "g", of: imu, within: facts.relativeTolerance) { accelerometer[Int($0.registerBits >> 2)] * 1000 }
            // FS_125 and FS_4000 (low bits of the code) have no entry in the emulator's table.
            try Self.expect(facts.gyroscope.filter { $0.registerBits & 0b11 == 0 }, "°/s", of: imu, within: facts.relativeTolerance) {
                LSM6Chip.gyroSensitivity[Int($0.registerBits >> 2)] * 1000
            }
            for rate in facts.rates { #expect(LSM6Chip.rates[Int(rate.registerBits >> 4) - 1] == rate.hz, "\(imu) \(rate.hz) Hz") }
        case .lsm9ds1:
            #expect(LSM9DS1Chip.outXLXL == facts.accelerometerData && LSM9DS1Chip.outXLG == facts.gyroscopeData)
            try Self.expect(facts.accelerometer, "g", of: imu, within: facts.relativeTolerance) {
                LSM9DS1Chip.accelerometerSensitivity[Int($0.registerBits >> 3)] * 1000
            }
            try Self.expect(facts.gyroscope, "°/s", of: imu, within: facts.relativeTolerance) {
                LSM9DS1Chip.gyroscopeSensitivity[Int($0.registerBits >> 3)] * 1000
            }
            for rate in facts.rates { #expect(LSM9DS1Chip.gyroscopeRates[Int(rate.registerBits >> 5) - 1] == rate.hz, "\(imu) \(rate.hz) Hz") }
        case .bmi160:
            #expect(BMI160Chip.chipID == facts.identityRegister && BMI160Chip.dataAccXL == facts.accelerometerData
                    && BMI160Chip.dataGyrXL == facts.gyroscopeData)
            try Self.expect(facts.accelerometer, "g", of: imu, within: facts.relativeTolerance) { scale in
                1e6 / (try #require(BMI160Chip.accelSensitivity[scale.registerBits], "\(imu) ±\(scale.range) g code"))
            }
            try Self.expect(facts.gyroscope, "°/s", of: imu, within: facts.relativeTolerance) {
                1e6 / BMI160Chip.gyroSensitivity[Int($0.registerBits)]
            }
            for rate in facts.rates { #expect(BMI160Chip.rate(code: rate.registerBits) == rate.hz, "\(imu) \(rate.hz) Hz") }
        case .bmi270:
            #expect(BMI270Chip.chipID == facts.identityRegister && BMI270Chip.dataAccXL == facts.accelerometerData
                    && BMI270Chip.dataGyrXL == facts.gyroscopeData)
            #expect(BMI270Chip.accConf == facts.rateRegister && BMI270Chip.accRange == facts.accelerometerRangeRegister
                    && BMI270Chip.gyrRange == facts.gyroscopeRangeRegister)
            try Self.expect(facts.accelerometer, "g", of: imu, within: facts.relativeTolerance) { 1e6 / BMI270Chip.accelSensitivity(code: $0.registerBits) }
            try Self.expect(facts.gyroscope, "°/s", of: imu, within: facts.relativeTolerance) {
                1e6 / BMI270Chip.gyroSensitivity[Int($0.registerBits)]
            }
            for rate in facts.rates { #expect(BMI270Chip.rate(code: rate.registerBits) == rate.hz, "\(imu) \(rate.hz) Hz") }
        case .icm42688:
            #expect(ICM42688Chip.accelDataX1 == facts.accelerometerData && ICM42688Chip.gyroDataX1 == facts.gyroscopeData)
            #expect(ICM42688Chip.whoAmI == facts.identityRegister && ICM42688Chip.identity == facts.identity)
            try Self.expect(facts.accelerometer, "g", of: imu, within: facts.relativeTolerance) {
                1e6 / ICM42688Chip.accelSensitivity[Int($0.registerBits >> 5)]
            }
            try Self.expect(facts.gyroscope, "°/s", of: imu, within: facts.relativeTolerance) {
                1e6 / ICM42688Chip.gyroSensitivity[Int($0.registerBits >> 5)]
            }
            for rate in facts.rates { #expect(ICM42688Chip.rates[rate.registerBits] == rate.hz, "\(imu) \(rate.hz) Hz") }
        case .mpu6050, .mpu6500, .mpu9150, .mpu9250:
            #expect(InvenSenseChip.accelXoutH == facts.accelerometerData && InvenSenseChip.whoAmI == facts.identityRegister)
            try Self.expect(facts.gyroscope, "°/s", of: imu, within: facts.relativeTolerance) {
                1e6 / InvenSenseChip.gyroSensitivity[Int($0.registerBits >> 3)]
            }
        case .icm20948:
            #expect(ICM20948Chip.accelXoutH == facts.accelerometerData && ICM20948Chip.whoAmI == facts.identityRegister)
            #expect(ICM20948Chip.gyroSmplrtDiv == facts.rateRegister && ICM20948Chip.gyroConfig1 == facts.gyroscopeRangeRegister)
            #expect(ICM20948Chip.accelConfig == facts.accelerometerRangeRegister)
            try Self.expect(facts.gyroscope, "°/s", of: imu, within: facts.relativeTolerance) {
                1e6 / ICM20948Chip.gyroSensitivity[Int($0.registerBits >> 1)]
            }
        case .bno055:
            break
        default:
            Issue.record("\(imu): no facts of its emulator written here")
        }
    }

    /// BNO055: drivers/iio/imu/bno055/bno055.c (torvalds/linux, read at 2c1ed90): BNO055_CHIP_ID_REG
    /// 0x0 = BNO055_CHIP_ID_MAGIC 0xA0, BNO055_PAGESEL_REG 0x7, BNO055_ACC_DATA_X_LSB_REG 0x8,
    /// BNO055_MAG_DATA_X_LSB_REG 0xE, BNO055_GYR_DATA_X_LSB_REG 0x14, BNO055_QUAT_DATA_W_LSB_REG
    /// 0x20 (all IIO_LE), BNO055_SYS_ERR_REG 0x3A, BNO055_UNIT_SEL_REG 0x3B (GYR_RPS BIT(1)),
    /// BNO055_OPR_MODE_REG 0x3D (CONFIG 0x0, AMG 0x7, FUSION 0xC), BNO055_POWER_MODE_REG 0x3E
    /// (NORMAL 0), BNO055_SYS_TRIGGER_REG 0x3F (RST_SYS BIT(5)); scales: acceleration 1/100 m/s²,
    /// field 1/16 µT, quaternion 1/(1 << 14), angular rate in fusion with UNIT_SEL GYR_RPS 1/900
    /// rad/s (fusion_vals {1, 900}); fusion accelerometer range 3924 (= 4 g in cm/s²).
    static let bno055Kernel = (
        chipID: UInt8(0x0), magic: UInt8(0xA0), pageSelect: UInt8(0x7), accelerometer: UInt8(0x8), magnetometer: UInt8(0xE),
        gyroscope: UInt8(0x14), quaternion: UInt8(0x20), systemError: UInt8(0x3A), unitSelect: UInt8(0x3B), operationMode: UInt8(0x3D),
        config: UInt8(0x0), fusion: UInt8(0xC), powerMode: UInt8(0x3E), systemTrigger: UInt8(0x3F), resetSystem: UInt8(1 << 5),
        accelerometerPerMetrePerSecondSquared: 100.0, magnetometerPerMicrotesla: 16.0, quaternionPerUnit: 16384.0,
        gyroscopeFusionPerRadianPerSecond: 900.0, fusionAccelerometerRangeCentimetres: 3924.0)

    @Test func bno055DriverMatchesTheKernel() {
        let k = Self.bno055Kernel
        #expect(BNO055Register.chipID == k.chipID && BNO055Settings.identity == k.magic && BNO055Register.pageID == k.pageSelect)
        #expect(BNO055Register.accelerometerData == k.accelerometer && BNO055Register.magnetometerData == k.magnetometer)
        #expect(BNO055Register.accelerometerData + UInt8(BNO055Register.blockOffsets.gyroscope) == k.gyroscope)
        #expect(BNO055Register.accelerometerData + UInt8(BNO055Register.blockOffsets.quaternion) == k.quaternion)
        #expect(BNO055Register.systemError == k.systemError && BNO055Register.unitSelection == k.unitSelect)
        #expect(BNO055Register.operationMode == k.operationMode && BNO055Mode.config == k.config && BNO055Mode.nineDegreesOfFreedom == k.fusion)
        #expect(BNO055Register.powerMode == k.powerMode && BNO055Register.systemTrigger == k.systemTrigger
                && BNO055Trigger.resetSystem == k.resetSystem)
        #expect(BNO055Settings.lsb.perMetrePerSecondSquared == k.accelerometerPerMetrePerSecondSquared)
        #expect(BNO055Settings.lsb.perMicrotesla == k.magnetometerPerMicrotesla && BNO055Settings.lsb.perQuaternionUnit == k.quaternionPerUnit)
        #expect(BNO055Settings.tables.accelerometerRanges.map(\.value) == [(k.fusionAccelerometerRangeCentimetres / 100 / 9.81).rounded()])
    }

    /// The emulator's own constants and its encoding agree with the kernel's facts: CHIP_ID, the
    /// data layout, and with UNIT_SEL GYR_RPS (as the kernel runs it) 900 LSB per rad/s.
    func bno055EmulatorMatchesTheKernel() throws {
        let k = Self.bno055Kernel
        #expect(BNO055Chip.chipID == k.chipID && BNO055Chip.pageID == k.pageSelect && BNO055Chip.accDataXL == k.accelerometer)
        #expect(BNO055Chip.magDataXL == k.magnetometer && BNO055Chip.gyrDataXL == k.gyroscope && BNO055Chip.quaWL == k.quaternion)
        #expect(BNO055Chip.sysErr == k.systemError && BNO055Chip.unitSel == k.unitSelect && BNO055Chip.oprMode == k.operationMode)
        #expect(BNO055Chip.pwrMode == k.powerMode && BNO055Chip.sysTrigger == k.systemTrigger)
        let state = PhysicalState(time: 0, specificForce: SIMD3(1, -2, 9.5), angularRate: SIMD3(0.5, -0.25, 1), magneticField: SIMD3(20, -5, -40))
        let board = SimulatedBoard(imu: .bno055, source: ConstantSource(state), now: { 0 })
        let address = I2CAddress(0x28)
        #expect(try board.bus.readRegister(address, k.chipID) == k.magic)
        try board.bus.writeRegister(address, k.unitSelect, 0x02)  // GYR_RPS
        try board.bus.writeRegister(address, k.operationMode, k.fusion)
        let bytes = try board.bus.readRegisters(address, k.accelerometer, count: 32)
        func axes(_ offset: Int) -> SIMD3<Double> {
            SIMD3((0..<3).map { Double(Int16(bitPattern: UInt16(bytes[offset + 2 * $0]) | UInt16(bytes[offset + 2 * $0 + 1]) << 8)) })
        }
        let quaternion = (0..<4).map { Double(Int16(bitPattern: UInt16(bytes[24 + 2 * $0]) | UInt16(bytes[25 + 2 * $0]) << 8)) / k.quaternionPerUnit }
        #expect(axes(0) == (state.specificForce * k.accelerometerPerMetrePerSecondSquared).rounded(.toNearestOrAwayFromZero))
        #expect(axes(6) == (state.magneticField * k.magnetometerPerMicrotesla).rounded(.toNearestOrAwayFromZero))
        #expect(axes(12) == (state.angularRate * k.gyroscopeFusionPerRadianPerSecond).rounded(.toNearestOrAwayFromZero))
        let norm: Double = quaternion.map { $0 * $0 }.reduce(0, +)
        #expect(abs(norm - 1) < 1e-3, "a unit quaternion")
    }

    // MARK: Magnetometers

    struct MagnetometerFacts {
        var name: String
        var source: String
        var identityRegister: UInt8
        var identity: [UInt8]
        /// First data register (without any auto-increment flag) and where x, y, z sit in it.
        var dataRegister: UInt8
        var axes: AxisLayout
        var rates: [(hz: Double, code: UInt8)]
        /// Full scale in µT → range code and µT per LSB.
        var ranges: [(microtesla: Double, code: UInt8, microteslaPerLSB: Double)]
        var relativeTolerance: Double
    }

    static let magnetometers: [MagnetometerFacts] = [
        // st_magn_core.c, st_magn_sensors_settings[] entry .wai = 0x3d (LIS3MDL and LSM9DS1's
        // magnetometer): odr 0x20 mask 0x1c codes 0…7 (0.625…80 Hz, the kernel rounds to whole Hz),
        // fs 0x21 mask 0x60 {4, 8, 12, 16 gauss} = {146, 292, 438, 584 µgauss/LSB}, channels
        // st_magn_2_16bit_channels at 0x28 little-endian. The kernel's integers are the datasheet's
        // 6842…1711 LSB/gauss rounded: tolerance 0.3 %.
        MagnetometerFacts(
            name: "LIS3MDL", source: "drivers/iio/magnetometer/st_magn_core.c", identityRegister: 0x0F, identity: [0x3D],
            dataRegister: 0x28, axes: .littleEndian,
            rates: [0.625, 1.25, 2.5, 5, 10, 20, 40, 80].enumerated().map { ($1, UInt8($0)) },
            ranges: zip([400.0, 800, 1200, 1600], [146.0, 292, 438, 584]).enumerated().map { ($1.0, UInt8($0), $1.1 / 10_000) },
            relativeTolerance: 0.003),
        // st_magn_core.c entry .wai = 0x40, .wai_addr = 0x4f (LIS2MDL): odr 0x60 mask 0x0c
        // {10, 20, 50, 100 Hz} = {0…3}, channels at 0x68, one fs_avl entry: gain 1500 µgauss/LSB,
        // labelled ST_MAGN_FS_AVL_15000MG (15 gauss = 1500 µT). That label is not the chip's range:
        // 2^15 counts at 1.5 mgauss/LSB are 49.152 gauss, and the LIS2MDL datasheet (DS12144,
        // Table 2: magnetic field range ±50 gauss, sensitivity 1.5 mgauss/LSB) gives that range. Our
        // 4915.2 µT (32768 × 0.15 µT) follows the datasheet; only the sensitivity is the kernel's.
        MagnetometerFacts(
            name: "LIS2MDL", source: "drivers/iio/magnetometer/st_magn_core.c (sensitivity); LIS2MDL datasheet DS12144 (full scale)",
            identityRegister: 0x4F, identity: [0x40],
            dataRegister: 0x68, axes: .littleEndian,
            rates: [10, 20, 50, 100].enumerated().map { ($1, UInt8($0)) },
            ranges: [(4915.2, 0, 0.15)], relativeTolerance: 1e-9),
        // hmc5843_core.c: HMC5843_ID_REG 0x0a = "H43", data from 0x03 in the order x, z, y
        // (HMC5883_CHANNEL indices), big-endian; hmc5883_regval_to_samp_freq 0.75…75 Hz = 0…6;
        // hmc5883l_regval_to_nanoscale[] = {7299, 9174, 12195, 15152, 22727, 25641, 30303,
        // 43478} (10⁷ / gain, i.e. 10⁻⁷ gauss per LSB) for ±0.88…8.1 gauss.
        MagnetometerFacts(
            name: "HMC5883L", source: "drivers/iio/magnetometer/hmc5843_core.c", identityRegister: 0x0A, identity: [0x48, 0x34, 0x33],
            dataRegister: 0x03, axes: AxisLayout(offsets: [0, 4, 2], bigEndian: true),
            rates: [0.75, 1.5, 3, 7.5, 15, 30, 75].enumerated().map { ($1, UInt8($0)) },
            ranges: zip([88.0, 130, 190, 250, 400, 470, 560, 810], [7299.0, 9174, 12195, 15152, 22727, 25641, 30303, 43478])
                .enumerated().map { ($1.0, UInt8($0), $1.1 / 100_000) },
            relativeTolerance: 0.0002),
        // ak8975.c: AK8975_REG_WIA 0x00 (AK8963 0x48), ST1 0x02 then HXL 0x03 little-endian. Its
        // AK8963 entry reads the 14-bit output (range 8190): ak8963_09911_raw_to_gauss is
        // (asa + 128) · 6000 / 256, 0.6 µT/LSB. We run the 16-bit output, as the MPU-9250's driver
        // does: inv_mpu_magn.c sets INV_MPU9250_MAGN_BIT_OUTPUT_BIT 0x10 in CNTL1 for the MPU-9250
        // and uses "sensor sensitivity in 16 bits mode: 0.15 uT" (sensitivity 1500, i.e.
        // (asa + 128) · 1500 / 256 µgauss) — 0.15 µT/LSB before the ASA adjustment. The kernel only
        // uses single measurements: the continuous-mode codes (CNTL1 MODE 0010 = 8 Hz, 0110 = 100 Hz,
        // BIT 1 = 16 bit) are from the AK8963 datasheet §8.3.6.
        MagnetometerFacts(
            name: "AK8963", source: "drivers/iio/imu/inv_mpu6050/inv_mpu_magn.c (16-bit sensitivity); ak8975.c; AK8963 datasheet §8.3.6",
            identityRegister: 0x00, identity: [0x48],
            dataRegister: 0x03, axes: .littleEndian,
            rates: [(8, 0b0010), (100, 0b0110)], ranges: [(4912, 1, 0.15)], relativeTolerance: 1e-9),
        // ak8975.c: AK8975_REG_WIA 0x00 = AK8975_DEVICE_ID 0x48, ST1 0x02, HXL 0x03 little-endian,
        // CNTL 0x0A with AK8975_REG_CNTL_MODE_ONCE 1 (no continuous mode: one measurement per
        // command; the 100 Hz is the rate the driver reads at), 13-bit output clamped to
        // −4096…4095 for ±1229 µT, RAW_TO_GAUSS_8975(asa) = (asa + 128) · 3000 / 256 µgauss,
        // i.e. 0.3 µT/LSB at asa 128.
        MagnetometerFacts(
            name: "AK8975", source: "drivers/iio/magnetometer/ak8975.c", identityRegister: 0x00, identity: [0x48],
            dataRegister: 0x03, axes: .littleEndian,
            rates: [(100, 0x01)], ranges: [(1229, 0, 0.3)], relativeTolerance: 1e-9),
        // ak8975.c, ak_def_array[AK09916] and ak8975_who_i_am(): WIA1/WIA2 read together from
        // AK09912_REG_WIA1 0x00 = AK8975_DEVICE_ID 0x48 and AK09916_DEVICE_ID 0x09; ST1 0x10
        // (DRDY bit 0), HXL 0x11 little-endian, ST2 0x18 (HOFL bit 3), CNTL2 0x31 (mode mask
        // 0x1F, self-test 0x10); range 32752 with ak09912_raw_to_gauss = (asa + 128) · 1500 / 256
        // µgauss, i.e. 0.15 µT/LSB (the AK09916 has no fuse ROM: asa reads as 128 in effect). The
        // kernel only uses single measurements: continuous modes 1–4 (CNTL2 0x02/0x04/0x06/0x08 =
        // 10/20/50/100 Hz) are from the AK09916 datasheet §9.3.
        MagnetometerFacts(
            name: "AK09916", source: "drivers/iio/magnetometer/ak8975.c; AK09916 datasheet §9.3", identityRegister: 0x00,
            identity: [0x48, 0x09], dataRegister: 0x11, axes: .littleEndian,
            rates: [(10, 0x02), (20, 0x04), (50, 0x06), (100, 0x08)], ranges: [(4912, 0, 0.15)], relativeTolerance: 1e-9),
        // qmc5883l.c: QMC5883L_REG_ID 0x0D = QMC5883L_CHIP_ID 0xFF; QMC5883L_REG_CTRL1 0x09 with
        // ODR GENMASK(3, 2) {10, 50, 100, 200 Hz} = 0…3 and RNG GENMASK(5, 4) 2G = 0, 8G = 1;
        // qmc5883l_scales[] {0, 83333} and {0, 333333} (IIO_VAL_INT_PLUS_NANO gauss per LSB: the
        // datasheet's 12000 and 3000 LSB/gauss rounded to 10⁻⁹ gauss, hence 10⁻⁵); data from
        // QMC5883L_REG_X_LSB 0x00, x, y, z as le16.
        MagnetometerFacts(
            name: "QMC5883L", source: "drivers/iio/magnetometer/qmc5883l.c", identityRegister: 0x0D, identity: [0xFF],
            dataRegister: 0x00, axes: .littleEndian,
            rates: [10, 50, 100, 200].enumerated().map { ($1, UInt8($0)) },
            ranges: [(200, 0, 83333e-9 * 100), (800, 1, 333333e-9 * 100)], relativeTolerance: 1e-5),
        // bmc150_magn.c: BMC150_MAGN_REG_CHIP_ID 0x40 = BMC150_MAGN_CHIP_ID_VAL 0x32 (read once the
        // power control bit, BMC150_MAGN_REG_POWER 0x4B BIT(0), is set); BMC150_MAGN_REG_X_L 0x42,
        // x, y, z as le16 (shifted right 3, 3, 1 bits); BMC150_MAGN_REG_OPMODE_ODR 0x4C with
        // bmc150_magn_samp_freq_table {2, 6, 8, 10, 15, 20, 25, 30 Hz} = {1, 2, 3, 0, 4, 5, 6, 7}
        // (GENMASK(5, 3)); the compensated output's scale 0.000625 gauss, "16 LSB/uT".
        MagnetometerFacts(
            name: "BMM150", source: "drivers/iio/magnetometer/bmc150_magn.c", identityRegister: 0x40, identity: [0x32],
            dataRegister: 0x42, axes: .littleEndian,
            rates: [(2, 1), (6, 2), (8, 3), (10, 0), (15, 4), (20, 5), (25, 6), (30, 7)], ranges: [(1300, 0, 0.0625)], relativeTolerance: 1e-9),
    ]

    static func driverSettings(_ name: String) -> MagnetometerSettings? {
        [LIS3MDLMagnetometer.settings, LIS2MDLMagnetometer.settings, HMC5883LMagnetometer.settings,
         AKModel.ak8963.settings.common, AKModel.ak09916.settings.common, AKModel.ak8975.settings.common, QMC5883LMagnetometer.settings,
         BMM150Settings.table].first { $0.name == name }
    }

    @Test(arguments: magnetometers.map(\.name))
    func magnetometerDriverTablesMatchTheKernel(_ name: String) throws {
        let facts = try #require(Self.magnetometers.first { $0.name == name })
        let ours = try #require(Self.driverSettings(name), "no driver for \(name)")
        let context = "\(name) vs \(facts.source)"
        #expect(ours.identityRegister == facts.identityRegister && ours.identity == facts.identity, "identity \(context)")
        // AK8963, AK09916: the driver's burst starts at ST1, one register before the data.
        let burstOffset = name.hasPrefix("AK") ? 1 : 0
        #expect(Int(ours.outputRegister & 0x7F) + burstOffset == Int(facts.dataRegister), "data register \(context)")
        #expect(ours.axes.offsets &- SIMD3(repeating: burstOffset) == facts.axes.offsets && ours.axes.bigEndian == facts.axes.bigEndian,
                "axis order and byte order \(context)")
        #expect(ours.outputDataRates.map(\.value) == facts.rates.map(\.hz), "rates \(context)")
        #expect(ours.outputDataRates.map(\.code) == facts.rates.map(\.code), "rate codes \(context)")
        #expect(ours.ranges.map(\.value) == facts.ranges.map(\.microtesla), "ranges \(context)")
        for (option, range) in zip(ours.ranges, facts.ranges) {
            #expect(option.code == range.code, "±\(range.microtesla) µT code \(context)")
            let microteslaPerLSB = 1 / option.sensitivity
            #expect(abs(microteslaPerLSB / range.microteslaPerLSB - 1) <= facts.relativeTolerance,
                    "±\(range.microtesla) µT: ours \(microteslaPerLSB) µT/LSB, kernel \(range.microteslaPerLSB) \(context)")
        }
    }

    @Test(arguments: SimulatedBoard.Magnetometer.allCases)
    func magnetometerEmulatorsMatchTheKernel(_ chip: SimulatedBoard.Magnetometer) throws {
        if chip == .mmc5983ma { return try mmc5983maEmulatorMatchesTheKernel() }  // MMC5983MAFactsTests.swift
        let name = chip.rawValue.uppercased()
        let facts = try #require(Self.magnetometers.first { $0.name == name })
        let board = SimulatedBoard(imu: .mpu6050, magnetometer: .chip(chip), source: atRest, now: { 0 })
        if chip == .bmm150 { try board.bus.writeRegister(chip.usualAddress, 0x4B, 0x01) }  // suspended until BMC150_MAGN_REG_POWER BIT(0)
        let identity = try board.bus.readRegisters(chip.usualAddress, facts.identityRegister, count: facts.identity.count)
        #expect(identity == facts.identity, "\(name) identity")
        let gaussPerLSB: [Double]
        switch chip {
        case .lis3mdl:
            #expect(LIS3MDLChip.outXL == facts.dataRegister && LIS3MDLChip.rates == facts.rates.map(\.hz))
            gaussPerLSB = LIS3MDLChip.sensitivity.map { 1 / $0 }
        case .lis2mdl:
            #expect(LIS2MDLChip.outXL == facts.dataRegister && LIS2MDLChip.rates == facts.rates.map(\.hz))
            gaussPerLSB = [LIS2MDLChip.gaussPerLSB]
        case .hmc5883l:
            #expect(HMC5883LChip.dataXMSB == facts.dataRegister && Array(HMC5883LChip.rates.prefix(7)) == facts.rates.map(\.hz))
            gaussPerLSB = HMC5883LChip.gains.map { 1 / $0 }
        case .qmc5883l:
            #expect(QMC5883LChip.dataXL == facts.dataRegister && QMC5883LChip.rates == facts.rates.map(\.hz))
            gaussPerLSB = QMC5883LChip.ranges.map { 1 / $0.lsbPerGauss }
        case .bmm150:
            #expect(BMM150Chip.dataXL == facts.dataRegister && facts.rates.allSatisfy { BMM150Chip.rates[Int($0.code)] == $0.hz })
            gaussPerLSB = [1 / (BMM150Chip.compensatedCountsPerMicrotesla * 100)]
        default:
            Issue.record("\(name): no facts of its emulator written here")
            return
        }
        #expect(gaussPerLSB.count == facts.ranges.count, "\(name) ranges")
        for (ours, range) in zip(gaussPerLSB, facts.ranges) {
            #expect(abs(ours * 100 / range.microteslaPerLSB - 1) <= facts.relativeTolerance, "\(name) ±\(range.microtesla) µT")
        }
    }

    /// The AK8963 sits inside the MPU-9250, behind its bypass: its emulator's registers.
    @Test func ak8963EmulatorMatchesTheKernel() throws {
        let facts = try #require(Self.magnetometers.first { $0.name == "AK8963" })
        #expect(AK8963Chip.wia == facts.identityRegister && AK8963Chip.hxl == facts.dataRegister)
    }

    /// The AK8975 sits inside the MPU-9150, behind its bypass: identity through the simulated bus
    /// once the bypass is on (inv_mpu_magn.c: "MPU9150 is AK8975", INV_MPU_MAGN_I2C_ADDR 0x0C,
    /// WIA 0x48), its emulator's registers, and a count of 0.3 µT.
    @Test func ak8975EmulatorMatchesTheKernel() throws {
        let facts = try #require(Self.magnetometers.first { $0.name == "AK8975" })
        let board = SimulatedBoard(imu: .mpu9150, magnetometer: .none, source: atRest, now: { 0 })
        #expect(throws: (any Error).self) { try board.bus.readRegister(I2CAddress(0x0C), 0x00) }
        try board.bus.writeRegister(board.imuAddress, 0x37, 0x02)  // INT_PIN_CFG BYPASS_EN
        #expect(try board.bus.readRegisters(I2CAddress(0x0C), facts.identityRegister, count: 1) == facts.identity)
        #expect(AK8963Chip.wia == facts.identityRegister && AK8963Chip.hxl == facts.dataRegister)
        // One single measurement of the at-rest field (20, 0, −40 µT) in raw counts: field / ASA
        // factor / 0.3 µT. The die's y lies along the package's x (its x along y, its z opposite).
        try board.bus.writeRegister(I2CAddress(0x0C), 0x0A, 0x01)
        let bytes = try board.bus.readRegisters(I2CAddress(0x0C), 0x02, count: 8)
        #expect(bytes[0] & 0x01 == 1)
        let y = Double(Int16(bitPattern: UInt16(bytes[3]) | UInt16(bytes[4]) << 8))
        let asaY = (Double(AK8963Chip.adjustment8975[1]) + 128) / 256
        #expect(abs(y * asaY * facts.ranges[0].microteslaPerLSB - 20) <= 0.3)
    }

    /// The AK09916 sits inside the ICM-20948, behind its bypass: identity through the simulated
    /// bus once the bypass is on, and its emulator's registers and LSB.
    @Test func ak09916EmulatorMatchesTheKernel() throws {
        let facts = try #require(Self.magnetometers.first { $0.name == "AK09916" })
        let board = SimulatedBoard(imu: .icm20948, magnetometer: .none, source: atRest, now: { 0 })
        try board.bus.writeRegister(board.imuAddress, 0x0F, 0x02)  // INT_PIN_CFG BYPASS_EN (bank 0)
        let identity = try board.bus.readRegisters(I2CAddress(0x0C), facts.identityRegister, count: facts.identity.count)
        #expect(identity == facts.identity)
        #expect(AK09916Chip.wia1 == facts.identityRegister && AK09916Chip.hxl == facts.dataRegister)
        #expect(AK09916Chip.st2 == 0x18 && AK09916Chip.cntl2 == 0x31)
        let range = try #require(facts.ranges.first)
        #expect(AK09916Chip.microteslaPerLSB == range.microteslaPerLSB)
    }
}

/// A chip at rest, face up: enough for identity reads.
private let atRest = ConstantSource(PhysicalState(
    time: 0, specificForce: SIMD3(0, 0, 9.80665), angularRate: .zero, magneticField: SIMD3(20, 0, -40), temperature: 25))
