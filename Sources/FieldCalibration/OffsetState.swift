import Fusion

/// The estimated offset b (µT) and k = F² − |b|² (µT², F the field strength), with their
/// covariance: the state of the Kalman filter.
struct OffsetState: Sendable {
    var x: SIMD4<Double>
    /// Symmetric 4×4 covariance by columns.
    var p0, p1, p2, p3: SIMD4<Double>
    /// The soft iron E the background fits left (``HardIronEstimator/Parameters/softIronAllowance``
    /// bounds it), estimated with b and k: E's six entries (xx, yy, zz, xy, xz, yz in lanes 0–5),
    /// their covariance by columns (`q0`…`q5`, lanes 0–5) and x's covariance with each (`e0`…`e5`).
    /// The field-strength constraint sees E in every reading it takes (|m − b|² = F² + 2 hᵀE h to
    /// first order, h = m − b): the constraint is a recursive ellipsoid fit whose prior on E is the
    /// allowance. Over a cap of directions (a board tilted, never turned over) E is not determined
    /// and readings near one another share its error: b's information from the constraint stops
    /// growing where E's would dominate, instead of adding up as if each reading's error were new,
    /// and b along the cap is left to the stretches. Over the whole sphere (a figure-eight) E is
    /// learned and the constraint pins b as a sphere fit would.
    var softIron = SIMD8<Double>.zero
    var q0, q1, q2, q3, q4, q5: SIMD8<Double>
    var e0 = SIMD4<Double>.zero, e1 = SIMD4<Double>.zero, e2 = SIMD4<Double>.zero
    var e3 = SIMD4<Double>.zero, e4 = SIMD4<Double>.zero, e5 = SIMD4<Double>.zero
    /// What the stretches leave out: their model has no soft iron, but with m − b = (I + E) h a
    /// stretch reads m₁ − Φ m₀ = (I − Φ) b + (EΦ − ΦE) h₀, so each one moves the state by its gain
    /// times that term of the true E. The state's error is then the error under the model plus
    /// S E (S the state's sensitivity to the true E, by rows: `s0`…`s3` for x, `t0`…`t5` for E's
    /// estimate, lanes 0–5 the true E's entries as in ``softIron``), and the offset's covariance
    /// under the true model is P + S Q Sᵀ − P_xE Sᵀ − S P_Ex (Q the prior of E, ``softIronPrior``;
    /// the cross terms because under the model the error is uncorrelated with the estimate, so its
    /// covariance with the true E is −P_xE). ``offsetErrorCovariance``; the filter's own gains are
    /// left as they are (taking E into the stretches' gains moved the offset on the motions it was
    /// designed on: docs/background-calibration.md, "Soft iron in the stretches").
    var s0 = SIMD8<Double>.zero, s1 = SIMD8<Double>.zero, s2 = SIMD8<Double>.zero, s3 = SIMD8<Double>.zero
    var t0 = SIMD8<Double>.zero, t1 = SIMD8<Double>.zero, t2 = SIMD8<Double>.zero
    var t3 = SIMD8<Double>.zero, t4 = SIMD8<Double>.zero, t5 = SIMD8<Double>.zero
    /// E's prior: each off-diagonal entry's variance (the diagonal's as in ``init``).
    let softIronPrior: Double

    /// `softIronAllowance`: the Frobenius norm of the soft iron feared (see
    /// ``HardIronEstimator/Parameters/softIronAllowance``). E's trace is left out (held at zero):
    /// a soft iron that scales every direction alike only scales the field's strength, which k
    /// already carries, so the two could not be told apart (and, linearized at a moving estimate,
    /// would drift apart without limit); a fitted soft iron is normalized the same way (determinant
    /// 1). The rest independent, the off-diagonal entries of variance v, the diagonal's 2v less
    /// their mean: E's expected squared norm 4v + 6v = a², so v = a²/10.
    init(offset: SIMD3<Double>, sigma: Double, fieldStrength: Double, softIronAllowance: Double) {
        let v = softIronAllowance * softIronAllowance / 10
        softIronPrior = v
        let same = 2 * v * 2 / 3, other = -2 * v / 3
        q0 = SIMD8(same, other, other, 0, 0, 0, 0, 0)
        q1 = SIMD8(other, same, other, 0, 0, 0, 0, 0)
        q2 = SIMD8(other, other, same, 0, 0, 0, 0, 0)
        q3 = SIMD8(0, 0, 0, v, 0, 0, 0, 0)
        q4 = SIMD8(0, 0, 0, 0, v, 0, 0, 0)
        q5 = SIMD8(0, 0, 0, 0, 0, v, 0, 0)
        x = SIMD4(offset, fieldStrength * fieldStrength - (offset * offset).sum())
        let variance = sigma * sigma
        // k is F² − |b|²: F within 20–70 µT and |b| up to the prior's size make it uncertain by
        // several thousand µT².
        let vk = 5000.0 * 5000.0
        p0 = SIMD4(variance, 0, 0, 0)
        p1 = SIMD4(0, variance, 0, 0)
        p2 = SIMD4(0, 0, variance, 0)
        p3 = SIMD4(0, 0, 0, vk)
    }

    var offset: SIMD3<Double> { SIMD3(x.x, x.y, x.z) }
    var offsetCovariance: Matrix3 {
        Matrix3(rows: SIMD3(p0.x, p0.y, p0.z), SIMD3(p1.x, p1.y, p1.z), SIMD3(p2.x, p2.y, p2.z))
    }
    /// F = √(k + |b|²), µT.
    var fieldStrength: Double { (max(x.w + (offset * offset).sum(), 0)).squareRoot() }

    /// Starts k from a field strength `strength` (µT) known to `sigma` (µT), independent of b:
    /// k = F² − |b|², so var k = (2Fσ)² + 4 bᵀP b and cov(k, b) = −2 P b.
    mutating func startStrength(_ strength: Double, sigma: Double) {
        let b = offset
        let pb = p0 * b.x + p1 * b.y + p2 * b.z   // P·b (its w part is dropped below)
        x.w = strength * strength - (b * b).sum()
        let variance = 4 * strength * strength * sigma * sigma + 4 * (SIMD3(pb.x, pb.y, pb.z) * b).sum()
        p0.w = -2 * pb.x
        p1.w = -2 * pb.y
        p2.w = -2 * pb.z
        p3 = SIMD4(-2 * pb.x, -2 * pb.y, -2 * pb.z, variance)
        // cov(k, E) = −2 bᵀ cov(b, E).
        func restarted(_ e: SIMD4<Double>) -> SIMD4<Double> { SIMD4(e.x, e.y, e.z, -2 * (SIMD3(e.x, e.y, e.z) * b).sum()) }
        e0 = restarted(e0); e1 = restarted(e1); e2 = restarted(e2)
        e3 = restarted(e3); e4 = restarted(e4); e5 = restarted(e5)
        s3 = -2 * (b.x * s0 + b.y * s1 + b.z * s2)
    }

    /// A measurement that E is zero: each off-diagonal entry to `variance` (the diagonal's,
    /// held to zero trace, to twice that, as E's prior).
    mutating func observeNoSoftIron(_ variance: Double) {
        for entry in 0..<6 {
            var g = SIMD8<Double>.zero
            g[entry] = 1
            _ = update(.zero, 0, entry < 3 ? 2 * variance : variance, gate: .infinity, softIron: g)
        }
    }

    mutating func addProcessNoise(_ q: Double) {
        p0.x += q
        p1.y += q
        p2.z += q
    }

    /// One scalar measurement y = hᵀx + noise (variance r): applied when its normalized innovation
    /// squared is within `gate`; returns that NIS. The soft iron E is in none of them (the
    /// stretches'), but what is known of it still changes as x does. `unchecked`: the variance of
    /// an error the gate does not test (the field's change over the board's excursion): it lowers
    /// the measurement's weight, and a measurement the model without it cannot explain is still
    /// skipped.
    @inline(__always)
    mutating func update(_ h: SIMD4<Double>, _ y: Double, _ r: Double, unchecked: Double = 0, gate: Double) -> Double {
        update(h, y, r, unchecked: unchecked, gate: gate, softIron: .zero)
    }

    /// The same for y = hᵀx + gᵀE + noise, `g` E's coefficients (lanes as ``softIron``): one
    /// Kalman update of the whole state (b, k, E).
    /// `leftOut`: the true E's coefficients in y that the model leaves out (a stretch's; see
    /// ``s0``), which only the sensitivity follows.
    @inline(__always)
    mutating func update(_ h: SIMD4<Double>, _ y: Double, _ r: Double, unchecked: Double = 0, gate: Double, softIron g: SIMD8<Double>,
                         leftOut c: SIMD8<Double> = .zero) -> Double {
        // P·H for H = (h, g): its x part (P_xx h + P_xE g) and its E part (P_Ex h + P_EE g).
        var towardX: SIMD4<Double> = p0 * h.x + p1 * h.y + p2 * h.z + p3 * h.w
        towardX += e0 * g[0] + e1 * g[1] + e2 * g[2]
        towardX += e3 * g[3] + e4 * g[4] + e5 * g[5]
        var towardE = SIMD8<Double>((h * e0).sum(), (h * e1).sum(), (h * e2).sum(), (h * e3).sum(), (h * e4).sum(), (h * e5).sum(), 0, 0)
        towardE += q0 * g[0] + q1 * g[1] + q2 * g[2]
        towardE += q3 * g[3] + q4 * g[4] + q5 * g[5]
        let checked = (h * towardX).sum() + (g * towardE).sum() + r
        let s = checked + unchecked
        guard checked > 0 else { return .infinity }
        let innovation = y - (h * x).sum() - (g * softIron).sum()
        let nis = innovation * innovation / checked
        guard nis <= gate else { return nis }
        let gainX = towardX / s, gainE = towardE / s
        x += gainX * innovation
        softIron += gainE * innovation
        // P −= P H Hᵀ P / s, block by block.
        p0 -= gainX * towardX.x
        p1 -= gainX * towardX.y
        p2 -= gainX * towardX.z
        p3 -= gainX * towardX.w
        // Column j of P_xE and of P_EE, each less its gain times (P H)'s E part's entry j.
        e0 -= gainX * towardE[0]; q0 -= gainE * towardE[0]
        e1 -= gainX * towardE[1]; q1 -= gainE * towardE[1]
        e2 -= gainX * towardE[2]; q2 -= gainE * towardE[2]
        e3 -= gainX * towardE[3]; q3 -= gainE * towardE[3]
        e4 -= gainX * towardE[4]; q4 -= gainE * towardE[4]
        e5 -= gainX * towardE[5]; q5 -= gainE * towardE[5]
        // S ← (I − K Hᵀ) S + K cᵀ: the row (c − Hᵀ S) times each row's gain.
        var unexplained: SIMD8<Double> = c - h.x * s0 - h.y * s1
        unexplained -= h.z * s2 + h.w * s3
        unexplained -= g[0] * t0 + g[1] * t1 + g[2] * t2
        unexplained -= g[3] * t3 + g[4] * t4 + g[5] * t5
        s0 += gainX.x * unexplained; s1 += gainX.y * unexplained; s2 += gainX.z * unexplained; s3 += gainX.w * unexplained
        t0 += gainE[0] * unexplained; t1 += gainE[1] * unexplained; t2 += gainE[2] * unexplained
        t3 += gainE[3] * unexplained; t4 += gainE[4] * unexplained; t5 += gainE[5] * unexplained
        return nis
    }

    /// The field-strength constraint |m|² = 2 mᵀb + k + 2 hᵀE h at reading `field` (h = m − b).
    @inline(__always)
    mutating func constrainStrength(_ field: SIMD3<Double>, _ r: Double, unchecked: Double, gate: Double) -> Double {
        let h = field - offset
        let g = SIMD8(2 * h.x * h.x, 2 * h.y * h.y, 2 * h.z * h.z, 4 * h.x * h.y, 4 * h.x * h.z, 4 * h.y * h.z, 0, 0)
        return update(SIMD4(2 * field, 1), (field * field).sum(), r, unchecked: unchecked, gate: gate, softIron: g)
    }

    /// A stretch: y = H b + noise (variance r per axis, H 3×3, k not involved; `unchecked` as in
    /// the scalar update), as three scalar updates in turn; applied as a whole when `apply` and the
    /// summed NIS (the vector's, since the axes' noise is independent) is within `gate`. Returns
    /// whether applied, and the NIS.
    /// `leftOut`: each axis's ``update(_:_:_:unchecked:gate:softIron:leftOut:)`` coefficients.
    mutating func update(_ h: Matrix3, _ y: SIMD3<Double>, _ r: Double, unchecked: Double = 0, gate: Double, apply: Bool,
                         leftOut c: (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>) = (.zero, .zero, .zero)) -> (Bool, Double) {
        var trial = self
        var nis = trial.update(SIMD4(h.rows.0, 0), y.x, r, unchecked: unchecked, gate: .infinity, softIron: .zero, leftOut: c.0)
        nis += trial.update(SIMD4(h.rows.1, 0), y.y, r, unchecked: unchecked, gate: .infinity, softIron: .zero, leftOut: c.1)
        nis += trial.update(SIMD4(h.rows.2, 0), y.z, r, unchecked: unchecked, gate: .infinity, softIron: .zero, leftOut: c.2)
        guard apply, nis <= gate else { return (false, nis) }
        self = trial
        return (true, nis)
    }
}

extension OffsetState {
    /// The soft iron E learned (lanes as ``softIron``) as a symmetric matrix.
    var softIronMatrix: Matrix3 {
        let e = softIron
        return Matrix3(rows: SIMD3(e[0], e[3], e[4]), SIMD3(e[3], e[1], e[5]), SIMD3(e[4], e[5], e[2]))
    }

    /// The expected Frobenius norm of E's error: √(E‖E − Ê‖²_F), each off-diagonal entry counted
    /// twice as in the norm.
    var softIronSigma: Double {
        (max(0, q0[0] + q1[1] + q2[2] + 2 * (q3[3] + q4[4] + q5[5]))).squareRoot()
    }
}

extension OffsetState {
    /// E's prior times `s` (lanes as ``softIron``): Q s.
    func priorTimes(_ s: SIMD8<Double>) -> SIMD8<Double> {
        let v = softIronPrior, same = 4 * v / 3, other = -2 * v / 3
        return SIMD8(same * s[0] + other * (s[1] + s[2]), same * s[1] + other * (s[0] + s[2]), same * s[2] + other * (s[0] + s[1]),
                     v * s[3], v * s[4], v * s[5], 0, 0)
    }

    /// Row `i` of P_bE: b_i's covariance with each of E's entries.
    private func offsetSoftIronRow(_ i: Int) -> SIMD8<Double> { SIMD8(e0[i], e1[i], e2[i], e3[i], e4[i], e5[i], 0, 0) }

    /// Row `i` of the offset's sensitivity to the true E (``s0``).
    private func sensitivityRow(_ i: Int) -> SIMD8<Double> { i == 0 ? s0 : i == 1 ? s1 : s2 }

    /// The coefficients of E's entries (lanes as ``softIron``) in uᵀ E w.
    static func softIronCoefficients(_ u: SIMD3<Double>, _ w: SIMD3<Double>) -> SIMD8<Double> {
        SIMD8(u.x * w.x, u.y * w.y, u.z * w.z, u.x * w.y + u.y * w.x, u.x * w.z + u.z * w.x, u.y * w.z + u.z * w.y, 0, 0)
    }

    /// The offset's covariance with the soft iron the stretches leave out (``s0``): P + S Q Sᵀ −
    /// P_bE Sᵀ − S P_Eb, the offset's block.
    var offsetErrorCovariance: Matrix3 {
        func entry(_ i: Int, _ j: Int) -> Double {
            let a = sensitivityRow(i), b = sensitivityRow(j)
            return (priorTimes(a) * b).sum() - (offsetSoftIronRow(i) * b).sum() - (a * offsetSoftIronRow(j)).sum()
        }
        let extra = Matrix3(rows: SIMD3(entry(0, 0), entry(0, 1), entry(0, 2)), SIMD3(entry(1, 0), entry(1, 1), entry(1, 2)),
                            SIMD3(entry(2, 0), entry(2, 1), entry(2, 2)))
        return offsetCovariance + extra
    }

    /// The covariance of the offset's error along `u` with the true E's term of coefficients `a`
    /// (lanes as ``softIron``): uᵀ (S Q − P_bE) a (the stretches' share, and the one under the
    /// model: its error's covariance with the true E is −P_bE).
    func offsetCovariance(along u: SIMD3<Double>, withSoftIron a: SIMD8<Double>) -> Double {
        let qa = priorTimes(a)
        let stretches = u.x * (s0 * qa).sum() + u.y * (s1 * qa).sum() + u.z * (s2 * qa).sum()
        let model = u.x * (offsetSoftIronRow(0) * a).sum() + u.y * (offsetSoftIronRow(1) * a).sum() + u.z * (offsetSoftIronRow(2) * a).sum()
        return stretches - model
    }
}
