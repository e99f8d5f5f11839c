import Foundation
import HyzerDomain

/// Checks of user input that every command applies before it writes.
enum Validation {
    static func name(_ name: String, of kind: String) throws(InputError) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw InputError.emptyName(kind: kind) }
        guard trimmed == name else { throw InputError.nameHasSurroundingSpaces(kind: kind) }
        guard name.utf8.count <= OpPayload.Limits.nameBytesMax else {
            throw InputError.nameTooLong(kind: kind, limit: OpPayload.Limits.nameBytesMax)
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw InputError.nameHasControlCharacters(kind: kind)
        }
    }

    /// Pars a course may have: 2 to 7 on each of 1 to 36 holes.
    static let parRange = 2...7

    static func pars(_ pars: [Int]) throws {
        guard (1...OpPayload.Limits.holesMax).contains(pars.count) else {
            throw InputError.parCountOutOfRange(count: pars.count, limit: OpPayload.Limits.holesMax)
        }
        for par in pars { try self.par(par) }
    }

    static func par(_ par: Int) throws {
        guard parRange.contains(par) else {
            throw InputError.parOutOfRange(par: par, range: parRange)
        }
    }

    static func strokes(_ strokes: Int) throws {
        guard ScoreEvent.strokeRange.contains(strokes) else { throw ReplicaError.strokesOutOfRange(strokes) }
    }

    static func hole(_ hole: Int, holeCount: Int) throws {
        guard (1...holeCount).contains(hole) else { throw ReplicaError.holeOutOfRange(hole: hole, holeCount: holeCount) }
    }
}
