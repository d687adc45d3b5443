import Foundation
import Testing
@testable import Motion

import MotionSimulation
@Suite("Built-in board embedding")
struct BoardEmbeddingTests {
    @Test("the embedded board files equal boards/*.json")
    func embeddedCopiesMatchRepository() throws {
        let hint = "Sources/Motion/Boards/BuiltInBoards.swift is out of date with boards/*.json: run scripts/embed-boards.sh"
        let files = try FileManager.default.contentsOfDirectory(atPath: BoardFixtures.boardsDirectory.path).filter { $0.hasSuffix(".json") }.sorted()
        let embedded = BuiltInBoards.files.map(\.name).sorted()
        #expect(embedded == files, "\(hint) (files differ: embedded \(embedded), on disk \(files))")
        for (name, json) in BuiltInBoards.files {
            let onDisk = try String(contentsOf: BoardFixtures.boardsDirectory.appendingPathComponent(name), encoding: .utf8)
            // What the script embeds: every line without its leading blanks, the lines joined.
            let compact = onDisk.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.drop { $0 == " " || $0 == "\t" || $0 == "\r" } }.joined()
            #expect(json == compact, "\(hint) (\(name) differs)")
        }
    }
}
