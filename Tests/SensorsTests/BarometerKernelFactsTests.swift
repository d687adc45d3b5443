import I2C
@testable import Sensors
import Testing

/// The barometer drivers' constants against a second reading: the values Linux's IIO drivers use,
/// typed in here from the kernel sources (torvalds/linux: st_pressure_core.c at 002c6ca, bmp280.h
/// at 0b0b772, dps310.c at 0278408, ms5611.h), beside the drivers' own (Sources/Sensors/Pressure).
@Suite struct BarometerKernelFactsTests {
    /// st_pressure_core.c: LPS25H `.wai = 0xbd` at 0x0f; ODR at 0x20 mask 0x70, codes 1…4 for 1, 7,
    /// 13 (the datasheet's 12.5) and 25 Hz; power 0x20 mask 0x80; BDU 0x20 mask 0x04;
    /// `multi_read_bit = true`; 4096 LSB/mbar, 480 LSB/°C, 42500 m°C offset; PRESS_OUT_XL 0x28,
    /// TEMP_OUT_L 0x2b.
    @Test func lps25h() {
        #expect(LPS25H.Register.whoAmI == 0x0F && LPS25H.identity == 0xBD)
        #expect(LPS25H.Register.ctrlReg1 == 0x20 && LPS25H.powerOn == 0x80 && LPS25H.blockDataUpdate == 0x04)
        #expect(LPS25H.autoIncrement == 0x80)
        let hertz = LPS25H.periods.map { 1000 / $0 }
        #expect(hertz.map { $0.rounded() } == [1, 7, 13, 25])  // codes 1…4
        #expect(LPS25H.countsPerHectopascal == 4096 && LPS25H.countsPerKelvin == 480 && LPS25H.temperatureOffset * 1000 == 42500)
        #expect(LPS25H.Register.pressOutXL == 0x28 && LPS25H.Register.tempOutL == 0x2B)
    }

    /// st_pressure_core.c: LPS22HB `.wai = 0xb1`, LPS22HH `0xb3`; ODR at 0x10 mask 0x70, codes 1…5
    /// for 1, 10, 25, 50, 75 Hz (the HH adds 6, 7 for 100, 200 Hz); BDU 0x10 mask 0x02 (`BIT(1)`);
    /// `multi_read_bit = false`; 100 LSB/°C.
    @Test func lps22() {
        #expect(LPS22.Model.lps22hb.identity == 0xB1 && LPS22.Model.lps22hh.identity == 0xB3)
        #expect(LPS22.Register.whoAmI == 0x0F && LPS22.Register.ctrlReg1 == 0x10 && LPS22.blockDataUpdate == 0x02)
        #expect(LPS22.Model.lps22hb.periods.map { (1000 / $0).rounded() } == [1, 10, 25, 50, 75])
        #expect(LPS22.Model.lps22hh.periods.map { (1000 / $0).rounded() } == [1, 10, 25, 50, 75, 100, 200])
        #expect(LPS22.countsPerHectopascal == 4096 && LPS22.countsPerKelvin == 100)
        #expect(LPS22.Register.pressOutXL == 0x28)
    }

    /// bmp280.h: `BMP280_REG_ID` 0xD0, `BMP280_CHIP_ID` 0x58, `BME280_CHIP_ID` 0x60, `BMP280_REG_RESET`
    /// 0xE0, `BMP280_SOFT_RESET_VAL` 0xB6, `BMP280_REG_COMP_TEMP_START` 0x88 (24 bytes with the
    /// pressure block), `BMP280_REG_CTRL_MEAS` 0xF4, `BMP280_REG_CONFIG` 0xF5, `BMP280_REG_PRESS_MSB`
    /// 0xF7, `BMP280_REG_CTRL_HUMIDITY` 0xF2, `BMP280_OSRS_HUMIDITY_SKIP` 0; filter codes 0…4 for off,
    /// 2, 4, 8, 16 (`BMP280_FILTER_*`).
    @Test func bmp280AndBME280() {
        #expect(BMP280.Register.chipID == 0xD0 && BMP280.Model.bmp280.identity == 0x58 && BMP280.Model.bme280.identity == 0x60)
        #expect(BMP280.Register.reset == 0xE0 && BMP280.resetCommand == 0xB6)
        #expect(BMP280.Register.calibration == 0x88 && BMP280.calibrationCount == 6 + 18)
        #expect(BMP280.Register.ctrlMeas == 0xF4 && BMP280.Register.config == 0xF5 && BMP280.Register.pressureMSB == 0xF7)
        #expect(BMP280.Register.ctrlHum == 0xF2 && BMP280.Model.bme280.ctrlHum == 0)
        #expect(BMP280.filters == [0: 0, 2: 1, 4: 2, 8: 3, 16: 4])
    }

    /// bmp280.h: `BMP380_REG_ID` 0x00, `BMP380_CHIP_ID` 0x50, `BMP380_REG_CMD` 0x7E,
    /// `BMP380_CMD_SOFT_RESET` 0xB6, `BMP380_REG_ERROR` 0x02 (`BMP380_ERR_CONF_MASK` BIT(2)),
    /// `BMP380_REG_PRESS_XLSB` 0x04, `BMP380_REG_POWER_CONTROL` 0x1B (press_en BIT(0), temp_en
    /// BIT(1), mode GENMASK(5, 4), normal 3), `BMP380_REG_OSR` 0x1C (press GENMASK(2, 0), temp
    /// GENMASK(5, 3)), `BMP380_REG_ODR` 0x1D, `BMP380_REG_CONFIG` 0x1F (filter GENMASK(3, 1), codes
    /// 0…7 for off, 1, 3, 7, 15, 31, 63, 127), `BMP380_REG_CALIB_TEMP_START` 0x31, 21 bytes.
    @Test func bmp3() throws {
        #expect(BMP3.Register.chipID == 0x00 && BMP3.Model.bmp388.identity == 0x50)
        #expect(BMP3.Register.command == 0x7E && BMP3.softReset == 0xB6)
        #expect(BMP3.Register.error == 0x02 && BMP3.configurationError == 1 << 2)
        #expect(BMP3.Register.data == 0x04)
        #expect(BMP3.Register.powerControl == 0x1B && BMP3.normalMode == (3 << 4 | 1 << 1 | 1 << 0))
        #expect(BMP3.Register.oversampling == 0x1C && BMP3.Register.outputRate == 0x1D && BMP3.Register.config == 0x1F)
        #expect(BMP3.filters == [0: 0, 1: 1, 3: 2, 7: 3, 15: 4, 31: 5, 63: 6, 127: 7])
        let registers = try BMP3.registers(for: BMP3.altitude)
        #expect(registers.oversampling & ~0b111_111 == 0 && registers.config & ~0b1110 == 0)  // within the masks
        #expect(BMP3.Register.calibration == 0x31 && BMP3Calibration.byteCount == 21)
    }

    /// dps310.c: PRS_B0 (its MSB) 0x00, TMP 0x03, PRS_CFG 0x06, TMP_CFG 0x07 (TMP_EXT BIT(7)),
    /// MEAS_CFG 0x08 (PRS_EN | TEMP_EN | BACKGROUND = 0x07, COEF_RDY BIT(7), SENSOR_RDY BIT(6)),
    /// CFG_REG 0x09 (`DPS310_TMP_SHIFT_EN` BIT(3)), RESET 0x0c with 0x09, COEF 0x10 (18 bytes),
    /// `scale_factors`, and the temperature workaround's registers and values. Its
    /// `DPS310_PRS_SHIFT_EN` is BIT(4), which the datasheet's CFG_REG calls INT_PRS; the pressure
    /// shift there is bit 2 (P_SHIFT), which our driver sets: the one fact where the two differ.
    @Test func dps310() {
        #expect(DPS310.Register.pressure == 0x00 && DPS310.Register.pressureConfig == 0x06 && DPS310.Register.temperatureConfig == 0x07)
        #expect(DPS310.externalTemperature == 0x80)
        #expect(DPS310.Register.measurementConfig == 0x08 && DPS310.continuous == 0x07)
        #expect(DPS310.coefficientsReady == 0x80 && DPS310.sensorReady == 0x40)
        #expect(DPS310.Register.config == 0x09 && DPS310.temperatureShift == 1 << 3)
        #expect(DPS310.pressureShift == 1 << 2 && DPS310.pressureShift != 1 << 4)
        #expect(DPS310.Register.reset == 0x0C && DPS310.softReset == 0x09)
        #expect(DPS310.Register.coefficients == 0x10 && DPS310Calibration.byteCount == 18)
        #expect(DPS310Calibration.scaleFactors == [524_288, 1_572_864, 3_670_016, 7_864_320, 253_952, 516_096, 1_040_384, 2_088_960])
        #expect(DPS310.workaroundCheck == 0x32)
        #expect(DPS310.workaround.map { [$0.0, $0.1] } == [[0x0E, 0xA5], [0x0F, 0x96], [0x62, 0x02], [0x0E, 0x00], [0x0F, 0x00]])
    }

    /// ms5611.h: `MS5611_RESET` 0x1e, `MS5611_READ_ADC` 0x00, `MS5611_READ_PROM_WORD` 0xA0, and at
    /// OSR 4096 `MS5611_START_PRESSURE_CONV` 0x48, `MS5611_START_TEMP_CONV` 0x58, with
    /// `MS5611_CONV_TIME_MIN` 9040 µs.
    @Test func ms5611() throws {
        #expect(MS5611.Command.reset == 0x1E && MS5611.Command.adcRead == 0x00 && MS5611.Command.promRead == 0xA0)
        let commands = try MS5611.commands(for: MS5611.altitude)
        #expect(commands.d1 == 0x48 && commands.d2 == 0x58)
        #expect(commands.d1Wait == .microseconds(9040) && commands.d2Wait == .microseconds(9040))
    }
}
