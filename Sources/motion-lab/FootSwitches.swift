/// The steps of a walk from its two foot switches, checked by the feet's alternation.
///
/// The Oxford traces' ground truth counts every 0 → 1 transition of either foot's switch (the
/// data set's README; its authors' `stats.js` does the same). A switch that lifts for a reading
/// and closes again mid-stance, or one that misses a step, shows as the same foot twice in a row,
/// which walking cannot do: between two steps of one foot the other steps once. So, in time order:
/// the same foot again within 1.5 median step intervals of its last step is one step, not two
/// (a bounce); within 1.5 to 2.5 it is two steps, the other foot's missed between them; later
/// than that is a pause, after which either foot may lead. The median step interval is that of
/// consecutive steps of alternate feet. Nothing here looks at the accelerometer.
struct FootSwitches {
    /// One 0 → 1 transition: its time (s) and which switch (0 or 1).
    struct Transition: Equatable {
        var time: Double
        var foot: Int
    }

    /// How many steps the transitions make, checked: `(steps, bounces, missed)` — `bounces`
    /// transitions not counted, `missed` steps added.
    static func checkedSteps(_ transitions: [Transition]) -> (steps: Int, bounces: Int, missed: Int) {
        let ordered = transitions.sorted { $0.time < $1.time }
        guard let first = ordered.first else { return (0, 0, 0) }
        var alternating: [Double] = []
        for (earlier, later) in zip(ordered, ordered.dropFirst()) where earlier.foot != later.foot {
            alternating.append(later.time - earlier.time)
        }
        guard !alternating.isEmpty else { return (ordered.count, 0, 0) }
        alternating.sort()
        let stepInterval = alternating[alternating.count / 2]
        var last = first
        var steps = 1
        var bounces = 0
        var missed = 0
        for transition in ordered.dropFirst() {
            if transition.foot == last.foot {
                let gap = transition.time - last.time
                if gap < 1.5 * stepInterval {
                    bounces += 1
                    continue
                }
                if gap <= 2.5 * stepInterval { missed += 1 }
            }
            steps += 1
            last = transition
        }
        return (steps + missed, bounces, missed)
    }

    /// The transitions in a `<trace>.gt.csv` of the optimisation campaign
    /// (`t_ns,foot1_down,foot2_down`, 1 = foot on the ground), times in seconds after `start` (ns);
    /// nil when the text is not in that layout (the validation traces' cumulative counts).
    static func transitions(csv text: String, start: Int64) -> [Transition]? {
        var lines = text.split(whereSeparator: \.isNewline).makeIterator()
        guard let header = lines.next(), header.hasPrefix("t_ns,foot1_down,foot2_down") else { return nil }
        var previous: [Int]?
        var transitions: [Transition] = []
        for line in lines {
            let fields = line.split(separator: ",")
            guard fields.count >= 3, let ns = Int64(fields[0]), let one = Double(fields[1]), let two = Double(fields[2]) else { return nil }
            let state = [Int(one), Int(two)]
            if let previous {
                for foot in 0..<2 where previous[foot] == 0 && state[foot] == 1 {
                    transitions.append(Transition(time: Double(ns - start) / 1e9, foot: foot))
                }
            }
            previous = state
        }
        return transitions
    }
}
