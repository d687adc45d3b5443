import I2C

extension ChipDescriptor {
    /// WHO_AM_I 0x69.
    package static let lsm6ds3 = lsm6(
        .lsm6ds3, cliNames: ["lsm6ds3"],
        gyroRestLimits: GyroRestLimits(biasDPS: 10, noiseDensityDPS: 0.007, source: "LSM6DS3 DocID026899 Table 3: G_TyOff ±10 dps, Rn 7 mdps/√Hz"))

    /// WHO_AM_I 0x6A: the LSM6DS3TR-C, LSM6DSL and LSM6DSM, told apart by no register.
    package static let lsm6dsl = lsm6(
        .lsm6dsl, cliNames: ["lsm6dsl"],
        gyroRestLimits: GyroRestLimits(biasDPS: 2, noiseDensityDPS: 0.004, source: "LSM6DSL DocID028475 Table 3: G_TyOff ±2 dps, Rn 4 mdps/√Hz"))

    /// WHO_AM_I 0x6C, shared with the LSM6DSO32: this one unless the caller names the LSM6DSO32.
    package static let lsm6dso = lsm6(
        .lsm6dso, cliNames: ["lsm6dsox", "lsm6dso"],
        gyroRestLimits: GyroRestLimits(biasDPS: 1, noiseDensityDPS: 0.0038, source: "LSM6DSOX DS12814 Table 2: G_TyOff ±1 dps, Rn 3.8 mdps/√Hz"),
        condition: .unlessNamed(lookalike: LSM6Model.lsm6dso32.rawValue))

    /// WHO_AM_I 0x6C as the LSM6DSO, with ±4…32 g: only the caller (board file) can say so.
    package static let lsm6dso32 = lsm6(
        .lsm6dso32, cliNames: ["lsm6dso32"],
        gyroRestLimits: GyroRestLimits(biasDPS: 1, noiseDensityDPS: 0.0038, source: "LSM6DSOX DS12814 Table 2: G_TyOff ±1 dps, Rn 3.8 mdps/√Hz"),
        condition: .onlyWhenNamed)

    /// WHO_AM_I 0x6B: the LSM6DSR, and the ISM330DHCX (industrial grade), which answers the same
    /// WHO_AM_I (ST DS13012, WHO_AM_I (0Fh); ST's ism330dhcx_reg.h ISM330DHCX_ID 0x6B) and has the
    /// LSM6DSR's register map, ±4000 dps included (DS13012 Table 3): one settings entry serves
    /// both, as in Linux drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c (`.wai = 0x6b`:
    /// ST_LSM6DSR_ID, ST_ISM330DHCX_ID). No gyroscope rest limits were taken (none before either).
    package static let lsm6dsr = lsm6(.lsm6dsr, cliNames: ["lsm6dsr", "ism330dhcx"], gyroRestLimits: nil)

    /// WHO_AM_I 0x70: the LSM6DSV16X, and the LSM6DSV, which answers the same (Linux
    /// st_lsm6dsx_core.c: one entry, `.wai = 0x70`, for ST_LSM6DSV_ID and ST_LSM6DSV16X_ID).
    /// No gyroscope rest limits were taken.
    package static let lsm6dsv16x = lsm6(
        .lsm6dsv16x, cliNames: ["lsm6dsv16x", "lsm6dsv"], gyroRestLimits: nil,
        wiring: "VDD 1.71–3.6 V (DS13510 features): feed it 3.3 V, never 5 V. CS high (or the breakout's pull-up) selects I2C; "
            + "SA0 sets the address: low 0x6A, high 0x6B (DS13510, I2C serial interface).")

    /// One LSM6 chip: WHO_AM_I (0x0F) from its settings, at 0x6A (SA0 low) or 0x6B; its FIFO as
    /// its settings say: untagged 12-byte frames (LSM6DS3/DSL) or two tagged 7-byte words per
    /// sample with the timestamp (25 µs; LSM6DSV16X 21.75 µs) (LSM6DSO/DSO32/DSR/DSV16X).
    private static func lsm6(
        _ model: LSM6Model, cliNames: [String], gyroRestLimits: GyroRestLimits?, condition: IdentityCondition = .always,
        wiring: String? = nil
    ) -> ChipDescriptor {
        let settings = LSM6Settings.settings(for: model)
        let fifo = switch settings.fifo {
        case .pattern: FIFOLayout(bytesPerSample: LSM6FIFOLayout.patternFrameBytes)
        case .tagged(let registers):
            FIFOLayout(
                bytesPerSample: 2 * LSM6FIFOLayout.taggedWordBytes,
                timestamp: FIFOTimestampFormat(lsb: registers.timestampLSB, wrap: registers.timestampWrap))
        }
        return ChipDescriptor(
            imu: model.rawValue, cliNames: cliNames, family: .lsm6,
            identity: ChipIdentity(
                register: LSM6Register.whoAmI, value: [settings.identity], addresses: [I2CAddress(0x6A), I2CAddress(0x6B)],
                condition: condition),
            tables: settings.tables, fifo: fifo, gyroRestLimits: gyroRestLimits,
            outputDelay: .none(because: "the driver leaves LPF1 off (CTRL4_C LPF1_SEL_G = 0; LSM6DSV16X CTRL7 LPF1_G_EN = 0), so the gyroscope's delay is its ODR-dependent chain's, which ST tabulates per ODR in the application notes (AN5192 for the LSM6DSO, AN5358 for the LSM6DSR, AN5040 for the LSM6DSL) and not in the datasheets' register descriptions; no copy of those tables, nor of a bandwidth from which to derive it, was found in the reachable pages and driver sources (Linux st_lsm6dsx, Zephyr, PX4, Betaflight, ST's own C drivers), so no figure is claimed (see README, Benchmarks and accuracy)"),
            spi: .stLSM6, wiring: wiring,
            stepCounter: settings.stepCounter
        ) { bus, address, pause, resetCompletion in
            LSM6IMU(bus: bus, address: address, model: model, pause: pause, resetCompletion: resetCompletion)
        }
    }
}
