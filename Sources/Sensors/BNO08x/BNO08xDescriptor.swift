import I2C

extension ChipDescriptor {
    /// The BNO080/085/086 at 0x4A (SA0 low) or 0x4B (SA0 high; 1000-3927 "I2C address"). It has no
    /// identity register: identification sends an SH-2 Product ID Request and waits for the
    /// response (``IdentityCondition/shtpProductID``). Its reports are its FIFO (no byte layout of
    /// its own: one frame a gyroscope report of 10 bytes); its magnetometer is the driver's
    /// companion. It stretches the I2C clock (1000-3927 "I2C interface": the hub holds SCL while
    /// it prepares a transfer), which the Raspberry Pi's controller mishandles.
    package static let bno08x = ChipDescriptor(
        imu: BNO08xSettings.name, cliNames: ["bno08x", "bno080", "bno085", "bno086"], family: .bno08x,
        identity: ChipIdentity(register: SH2Control.productIDRequest, value: BNO08xSettings.identity,
                               addresses: [I2CAddress(0x4A), I2CAddress(0x4B)], condition: .shtpProductID),
        tables: BNO08xSettings.tables, fifo: FIFOLayout(bytesPerSample: SH2Report.gyroscope.length), gyroRestLimits: nil,
        outputDelay: .none(because: "the hub fuses and filters on its own firmware; 1000-3927 gives no group delay for its reports"),
        stretchesClock: true, make: factory(BNO08xIMU.self))
}

/// Identification of a sensor hub that speaks SHTP: it answers a Product ID Request.
enum SHTPIdentification {
    /// Packets read while waiting for the response (the advertisement and reset notice of a hub
    /// just powered on come first), and the empty reads allowed between them, 10 ms apart.
    static let packetLimit = 16
    static let emptyReadLimit = 10

    /// Whether the device at `address` answers a Product ID Request with a Product ID Response.
    /// Reads first: only a device whose first 4 bytes read as an SHTP header (nothing to send, or
    /// a known channel and a plausible length) gets the request written (4-byte SHTP header and 2
    /// bytes on the control channel), so that another chip at these addresses (an ADC or a
    /// temperature sensor at 0x48–0x4B) is written to only when it reads like a hub. A missing
    /// acknowledge is no hub.
    static func answersProductID(bus: any I2CBus, address: I2CAddress, pause: Pause) throws(SensorError) -> Bool {
        var transport = SHTPTransport(bus: bus, address: address)
        do {
            let first = SHTPHeader(try bus.read(address, count: SHTPHeader.size))
            guard first.length == 0 && first.channel == 0 || SHTPTransport.isPlausible(first) else { return false }
            try transport.send(SH2Control.productIDRequestCargo, on: SHTPChannel.control)
            var empty = 0
            for _ in 0..<packetLimit {
                guard let packet = try transport.receive() else {
                    empty += 1
                    if empty >= emptyReadLimit { return false }
                    pause.wait(.milliseconds(10))
                    continue
                }
                if packet.channel == SHTPChannel.control, SH2ProductID(packet.cargo[...]) != nil { return true }
            }
            return false
        } catch {
            if error.kind == .noAcknowledge { return false }
            throw .bus(error)
        }
    }
}
