/// The simulated board behind a manager: its bus (for fault injection) and the world it is in
/// (the ground truth).
public struct SimulatedHardware: Sendable {
    package let board: SimulatedBoard
    /// The motion and fields the simulated chips sense: ask it for the truth at a time.
    public let world: World

    package init(board: SimulatedBoard, world: World) {
        self.board = board
        self.world = world
    }
}
