import Foundation
import Fusion
@testable import Motion
import MotionSimulation
import MotionSimulator
import MotionTools
import Testing
import TestSupport

/// The background soft-iron fits on the simulated board (its LIS3MDL with the preset's soft iron),
/// in virtual time, nothing stored: the figure-eight reaches the ellipsoid, ordinary handling the
/// holds' fit.
@Suite struct BackgroundSoftIronTrialTests {
    /// The figure-eight with soft iron: a fit is applied (the soft iron learned from the field's
    /// strength, seeds 1 and 2 at 18.5 and 46 s; the ellipsoid later, measured on seeds 1–20 before
    /// it: after 91–106 s); once under 1 % of soft iron is left, the heading is within 1° RMS 5 s
    /// later (before any fit existed: up to 4.93°) and the offset within 1 µT; the accuracy reaches
    /// `high` after the first fit, and says it only while the offset is within 1 µT.
    @Test(arguments: [1, 2] as [UInt64])
    func aFigureEightWithSoftIronReachesTheFit(seed: UInt64) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: "figure-eight", duration: 124, step: 0.2)
        let fitted = try #require(trial.timeToSoftIronFit, "seed \(seed): never fitted")
        #expect(fitted < 110, "seed \(seed): fitted after \(fitted) s")
        #expect(trial.highButWrong == 0, "seed \(seed)")
        let high = try #require(trial.timeToHigh, "seed \(seed): never high")
        #expect(high > fitted, "seed \(seed): high at \(high) s before the fit at \(fitted) s")
        let fine = try #require(trial.points.first { $0.softIronLeft < 0.01 }, "seed \(seed): never under 1 % of soft iron")
        #expect(fine.time < 110, "seed \(seed): under 1 % of soft iron after \(fine.time) s")
        let settled = fine.time + 5
        #expect(trial.headingRMS(after: settled) < 1, "seed \(seed): heading RMS \(trial.headingRMS(after: settled))°")
        #expect(trial.after(settled).allSatisfy { $0.offsetError < 1 }, "seed \(seed)")
    }

    /// Ordinary handling, with or without a magnet passing or attached: a cap of directions, which
    /// the ellipsoid never fits; the holds between the turns do (``HoldSoftIron``): applied before
    /// the handling ends (measured on seeds 1–20: at 15.0 s), leaving under 2 % of the soft iron,
    /// and never `high` while the offset is more than 1 µT off.
    @Test(arguments: ["ordinary-handling", "magnet-passing", "magnet-attached"], [1, 2] as [UInt64])
    func ordinaryHandlingFitsFromTheHolds(scenario: String, seed: UInt64) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: scenario, duration: 90, step: 0.5)
        let fitted = try #require(trial.timeToSoftIronFit, "\(scenario) seed \(seed): never fitted")
        #expect(fitted < Scenario.handlingDuration, "\(scenario) seed \(seed): fitted at \(fitted) s")
        let last = try #require(trial.points.last)
        #expect(last.softIronLeft < 0.02, "\(scenario) seed \(seed): \(last.softIronLeft * 100) % of soft iron left")
        #expect(trial.highButWrong == 0, "\(scenario) seed \(seed)")
    }

    /// The fit is saved with the estimate (marked background, model ellipsoid, its matrix undoing
    /// the board's soft iron), and the next run starts from it at `medium` or better.
    @Test func theFitIsSavedAndTheNextRunStartsFromIt() throws {
        try withTemporaryDirectory("background-soft-iron") { directory in
            let store = CalibrationStore(directory: directory)
            let first = try BackgroundCalibrationTrial.run(seed: 3, scenario: "figure-eight", duration: 124, store: store, step: 0.2)
            #expect(first.timeToSoftIronFit != nil)
            let magnetometer = try #require(try store.all().first?.record.magnetometer)
            #expect(magnetometer.isBackground)
            #expect(magnetometer.model == "ellipsoid")
            let saved = try #require(Matrix3(rowMajor: magnetometer.softIronMatrix))
            let product = saved * MagnetometerErrorModel.lis3mdl.softIron
            let scale = (product.m11 + product.m22 + product.m33) / 3
            #expect((product - Matrix3(diagonal: SIMD3(repeating: scale))).frobeniusNorm < 0.01, "\(saved)")
            let offset = SIMD3(magnetometer.hardIronOffset[0], magnetometer.hardIronOffset[1], magnetometer.hardIronOffset[2])
            #expect(((offset - first.trueOffset) * (offset - first.trueOffset)).sum().squareRoot() < 0.5, "\(offset) against \(first.trueOffset)")

            let second = try BackgroundCalibrationTrial.run(seed: 3, scenario: "rest", duration: 5, store: store)
            #expect(second.firstAccuracy.map { $0 >= .medium } == true, "\(String(describing: second.firstAccuracy))")
            #expect(second.points.allSatisfy { !$0.softIronFitted })
        }
    }
}
