/// The LSM6DSO's embedded functions the step counter needs: a register page of their own,
/// reached through FUNC_CFG_ACCESS, in which the pedometer is switched on and its count read.
enum LSM6EmbeddedFunctions {
    /// FUNC_CFG_ACCESS (01h), FUNC_CFG_ACCESS bit 7: the embedded functions' page in place of the
    /// user registers while set (DS12140 §9, FUNC_CFG_ACCESS (01h)).
    static let funcCfgAccess: UInt8 = 0x01
    static let embeddedPage: UInt8 = 0x80
    static let userPage: UInt8 = 0x00
    /// EMB_FUNC_EN_A (04h of the embedded page), PEDO_EN bit 3 (DS12140 §11, embedded functions
    /// register description; ST's out-of-tree Linux driver st_lsm6dso_embfunc.c has the same
    /// address and bit; mainline drivers/iio/imu/st_lsm6dsx has no pedometer).
    static let embFuncEnA: UInt8 = 0x04
    static let pedometerEnable: UInt8 = 0x08
    /// STEP_COUNTER_L (62h) and STEP_COUNTER_H (63h) of the embedded page: the steps, 16 bits,
    /// little-endian (DS12140 §11).
    static let stepCounterL: UInt8 = 0x62
}

extension LSM6IMU: StepCountingDriver {
    /// Switches the pedometer on (EMB_FUNC_EN_A PEDO_EN) in the embedded page and returns to the
    /// user page. The counter is left as it is: a reader takes differences (``StepCounterFeature/steps(from:to:)``).
    package func enableStepCounter() throws(SensorError) {
        try inEmbeddedPage { () throws(SensorError) in
            try device.write(LSM6EmbeddedFunctions.embFuncEnA, LSM6EmbeddedFunctions.pedometerEnable)
        }
    }

    /// STEP_COUNTER_L/H in one read, in the embedded page.
    package func readStepCounter() throws(SensorError) -> Int {
        try inEmbeddedPage { () throws(SensorError) -> Int in
            try device.burst(LSM6EmbeddedFunctions.stepCounterL, count: 2) { Int($0[0]) | Int($0[1]) << 8 }
        }
    }

    /// `body` with the embedded functions' page selected, under the driver's lock (so no FIFO or
    /// sample read meets the other page), then the user page again. When `body` fails the user
    /// page is still asked for; its own failure then is not reported over `body`'s, the cause.
    private func inEmbeddedPage<Result>(_ body: () throws(SensorError) -> Result) throws(SensorError) -> Result {
        guard settings.stepCounter != nil else {
            throw .notSupported(chip: chip.name, feature: "step counter this driver runs (the LSM6DSO, LSM6DSOX and LSM6DSO32 have one)")
        }
        return try core.locked { _ throws(SensorError) -> Result in
            try device.write(LSM6EmbeddedFunctions.funcCfgAccess, LSM6EmbeddedFunctions.embeddedPage)
            let result: Result
            do throws(SensorError) {
                result = try body()
            } catch {
                do throws(SensorError) { try device.write(LSM6EmbeddedFunctions.funcCfgAccess, LSM6EmbeddedFunctions.userPage) } catch _ {}
                throw error
            }
            try device.write(LSM6EmbeddedFunctions.funcCfgAccess, LSM6EmbeddedFunctions.userPage)
            return result
        }
    }
}
