import Testing
@testable import motion_lab

/// The foot switches' steps checked by the feet's alternation (docs/steps.md, "The ground truth").
@Suite struct FootSwitchesTests {
    /// Feet alternating every 0.5 s from `start`, `count` steps, the first with `firstFoot`.
    static func walk(from start: Double, count: Int, firstFoot: Int = 0) -> [FootSwitches.Transition] {
        (0..<count).map { FootSwitches.Transition(time: start + 0.5 * Double($0), foot: ($0 + firstFoot) % 2) }
    }

    @Test func anAlternatingWalkIsCountedAsItIs() {
        let checked = FootSwitches.checkedSteps(Self.walk(from: 0, count: 40))
        #expect(checked.steps == 40)
        #expect(checked.bounces == 0 && checked.missed == 0)
    }

    /// A switch that opens for a reading mid-stance closes again 0.3 s after its step: one step.
    @Test func aBounceIsOneStep() {
        var transitions = Self.walk(from: 0, count: 40)
        transitions.append(.init(time: 10.3, foot: transitions[20].foot))
        let checked = FootSwitches.checkedSteps(transitions)
        #expect(checked.steps == 40)
        #expect(checked.bounces == 1)
    }

    /// One foot's switch misses a step: its neighbour's foot twice, a stride apart, is two steps.
    @Test func aMissedStepIsAdded() {
        var transitions = Self.walk(from: 0, count: 40)
        transitions.remove(at: 21)
        let checked = FootSwitches.checkedSteps(transitions)
        #expect(checked.steps == 40)
        #expect(checked.missed == 1)
    }

    /// After standing for 5 s either foot may lead: the same foot again is a new step, not a bounce.
    @Test func aPauseLetsEitherFootLead() {
        let first = Self.walk(from: 0, count: 20)
        let lastFoot = first[first.count - 1].foot
        let second = Self.walk(from: first[first.count - 1].time + 5, count: 20, firstFoot: lastFoot)
        let checked = FootSwitches.checkedSteps(first + second)
        #expect(checked.steps == 40)
        #expect(checked.bounces == 0 && checked.missed == 0)
    }

    @Test func readsTheSwitchesOfAnOptimisationTrace() throws {
        let csv = """
            t_ns,foot1_down,foot2_down
            1000000000,1,0
            1100000000,0,0
            1200000000,0,1
            1300000000,0,0
            1400000000,1,0
            """
        let transitions = try #require(FootSwitches.transitions(csv: csv, start: 1_000_000_000))
        #expect(transitions.map(\.foot) == [1, 0])
        #expect(transitions.map(\.time) == [0.2, 0.4])
        #expect(FootSwitches.transitions(csv: "t_ns,gt_steps_cum\n1,2\n", start: 0) == nil)
    }
}
