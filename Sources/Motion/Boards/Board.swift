import Fusion
import I2C
import Sensors

/// One single-board computer as described by a board file (`boards/<id>.json`; schema in
/// `boards/README.md`): how to recognise it, its I2C buses, where its motion chips answer when the
/// board says (else the registry's scan), how the chip is mounted, and what a person must do to enable I2C.
public struct Board: Sendable, Equatable {
    /// A pin of the board's expansion header.
    package struct Pin: Sendable, Codable, Equatable {
        /// The header pin as printed on the board: `"3"` on a 40-pin header, `"P9_20"` on a BeagleBone.
        package var header: String
        /// The SoC's name for the signal, e.g. `"GPIO2 (I2C1 SDA)"`.
        package var soc: String
    }

    /// One I2C bus brought out to the header.
    package struct I2CBus: Sendable, Codable, Equatable {
        /// The Linux device node, `/dev/i2c-N`.
        package var device: String
        package var sdaPin: Pin
        package var sclPin: Pin
        /// The clock the bus runs at after the setup note, without speed changes, in Hz.
        package var defaultSpeedHz: Int
        /// The highest clock documented for this bus on this board, in Hz.
        package var maxSpeedHz: Int
        /// The bus the library uses when none is named (exactly one per board).
        package var isDefault: Bool

        /// N in `/dev/i2c-N`.
        package var busNumber: Int? {
            Int(device.dropFirst(BoardFileParser.devicePrefix.count))
        }
    }

    /// The human name, e.g. "Raspberry Pi 4 Model B".
    public var name: String
    /// The file stem, e.g. `raspberry-pi-4b`.
    public var id: String
    /// Device-tree model strings that identify the board (from `/proc/device-tree/model`).
    /// An entry matches the whole model string, or, when it ends in `*`, any model starting with
    /// the text before the `*`.
    package var match: [String]
    /// The I2C buses on the header; never empty, exactly one is the default.
    package var i2cBuses: [I2CBus]
    /// Where to look for an IMU, in order: the board's narrowing, else every address an IMU
    /// swift-motion drives can sit at (``ChipRegistry/imuScanAddresses``).
    package var imuAddresses: [I2CAddress] { narrowedIMUAddresses ?? ChipRegistry.imuScanAddresses }
    /// Where to look for a magnetometer, in order: the board's narrowing, else every address a
    /// magnetometer swift-motion drives can sit at (``ChipRegistry/magnetometerScanAddresses``).
    package var magnetometerAddresses: [I2CAddress] { narrowedMagnetometerAddresses ?? ChipRegistry.magnetometerScanAddresses }
    /// The IMU addresses the board file lists (`imuAddresses`), for a board whose chips sit at
    /// known addresses; nil: the registry's scan.
    package var narrowedIMUAddresses: [I2CAddress]?
    /// The magnetometer addresses the board file lists (`magnetometerAddresses`; empty: look for
    /// no separate magnetometer); nil: the registry's scan.
    package var narrowedMagnetometerAddresses: [I2CAddress]?
    /// Maps chip axes to device axes: `v_device = mountMatrix * v_chip`. Device frame: x to the
    /// right, y toward the top edge, z out of the front face. Always a proper rotation.
    package var mountMatrix: Matrix3
    /// What a person must do to enable I2C, set its speed and get permission to use it.
    public var setup: String
    /// The IMU and magnetometer chips the board carries, for a board with chips of its own (a
    /// HAT); nil for a board whose sensors are whatever a person wires to its header. The
    /// simulator lays a board with chips out with them (`--simulated --board`). `imuChip`
    /// `LSM6DSO32` also tells a real one from the LSM6DSO, whose identity it shares.
    package var imuChip: String?
    package var magnetometerChip: String?
    /// The IMUs the board file lists one by one (`"imus"`: each on an I2C bus and address or an
    /// SPI device, with its chip where the board says), for a board with several or one on SPI;
    /// empty for a board whose IMU is found by the scan of ``imuAddresses``.
    package var imus: [IMUPlacement] = []

    /// Where each IMU the board file lists sits, in the file's order (``MotionSource/device(_:_:)``
    /// opens a manager on one); empty for a board whose single IMU is found by address scan.
    public var imuLocations: [IMULocation] { imus.map(\.location) }

    /// The barometer the board carries (a HAT's: the Sense HAT's LPS25H at 0x5C); nil for a board
    /// whose barometer, if any, is wired to its header (looked for at every barometer address).
    package var barometer: Barometer?

    /// A barometer on the board: its chip, by name as `motionctl probe` prints it, and its address.
    package struct Barometer: Sendable, Equatable, Hashable {
        package var chip: String
        package var address: I2CAddress
        package init(chip: String, address: I2CAddress) {
            self.chip = chip
            self.address = address
        }
    }

    /// Where the barometer is looked for: the board's own, else every address a supported one can sit at.
    package var barometerAddresses: [I2CAddress] { barometer.map { [$0.address] } ?? ChipRegistry.barometerScanAddresses }

    package init(
        name: String, id: String, match: [String], i2cBuses: [I2CBus], imuAddresses: [I2CAddress]? = nil,
        magnetometerAddresses: [I2CAddress]? = nil, mountMatrix: Matrix3, setup: String,
        imuChip: String? = nil, magnetometerChip: String? = nil, imus: [IMUPlacement] = [], barometer: Barometer? = nil
    ) {
        self.imus = imus
        self.barometer = barometer
        self.imuChip = imuChip
        self.magnetometerChip = magnetometerChip
        self.name = name
        self.id = id
        self.match = match
        self.i2cBuses = i2cBuses
        narrowedIMUAddresses = imuAddresses
        narrowedMagnetometerAddresses = magnetometerAddresses
        self.mountMatrix = mountMatrix
        self.setup = setup
    }

    /// The bus marked `isDefault`. A board loaded from a file always has exactly one; `nil` only
    /// for a board built in code without one.
    package var defaultBus: I2CBus? {
        i2cBuses.first(where: \.isDefault)
    }

    /// The length of the `match` entry that recognises `model`, or `nil` when none does.
    /// `model` is compared after `BoardCatalog.normalizedModel`.
    package func matchLength(model: String) -> Int? {
        let model = BoardCatalog.normalizedModel(model)
        return match.compactMap { entry -> Int? in
            if entry.hasSuffix("*") {
                let prefix = entry.dropLast()
                return model.hasPrefix(prefix) ? prefix.count : nil
            }
            return model == entry ? entry.count : nil
        }.max()
    }

    /// True when a `match` entry recognises `model`.
    package func matches(model: String) -> Bool {
        matchLength(model: model) != nil
    }
}

extension Board: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, id, match, i2cBuses, imuAddresses, magnetometerAddresses, mountMatrix, setup, imuChip, magnetometerChip
        case imus, barometer

        /// The keys every board file has; the others are optional.
        static let required: [CodingKeys] = [.name, .id, .match, .i2cBuses, .mountMatrix, .setup]
    }

    /// Decodes with the same checks as a board file (unknown keys, ranges, proper rotation);
    /// a failure is a `DecodingError.dataCorrupted` whose underlying error is a `BoardFileError`.
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        do {
            self = try BoardFileParser(file: "<decoded board>").board(from: value, expectedID: nil)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }

    /// Encodes in the board-file format: addresses as `"0x68"` strings, the matrix as nine numbers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(id, forKey: .id)
        try container.encode(match, forKey: .match)
        try container.encode(i2cBuses, forKey: .i2cBuses)
        try container.encodeIfPresent(narrowedIMUAddresses?.map(\.description), forKey: .imuAddresses)
        try container.encodeIfPresent(narrowedMagnetometerAddresses?.map(\.description), forKey: .magnetometerAddresses)
        try container.encode(mountMatrix.rowMajor, forKey: .mountMatrix)
        try container.encode(setup, forKey: .setup)
        try container.encodeIfPresent(imuChip, forKey: .imuChip)
        try container.encodeIfPresent(magnetometerChip, forKey: .magnetometerChip)
        if !imus.isEmpty { try container.encode(imus.map(EncodedPlacement.init), forKey: .imus) }
        try container.encodeIfPresent(barometer.map { ["chip": $0.chip, "address": $0.address.description] }, forKey: .barometer)
    }

    /// One `"imus"` entry as the board file writes it.
    private struct EncodedPlacement: Encodable {
        var i2cBus: String?
        var address: String?
        var spi: String?
        var chip: String?

        init(_ placement: IMUPlacement) {
            switch placement.location {
            case .i2c(let bus, let address): (i2cBus, self.address) = (bus, I2CAddress(address).description)
            case .spi(let device): spi = device
            }
            chip = placement.chip
        }
    }
}
