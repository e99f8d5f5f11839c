import Foundation
import HyzerDomain

/// Checks of user input that every command applies before it writes.
enum Validation {
    static func name(_ name: String, of kind: String) throws {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ReplicaError.invalidValue("a \(kind) name cannot be empty") }
        guard trimmed == name else { throw ReplicaError.invalidValue("a \(kind) name cannot start or end with spaces") }
        guard name.utf8.count <= OpPayload.Limits.nameBytesMax else {
            throw ReplicaError.invalidValue("a \(kind) name is limited to \(OpPayload.Limits.nameBytesMax) bytes")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ReplicaError.invalidValue("a \(kind) name cannot contain control characters")
        }
    }

    /// Pars a course may have: 2 to 7 on each of 1 to 36 holes.
    static let parRange = 2...7

    static func pars(_ pars: [Int]) throws {
        guard (1...OpPayload.Limits.holesMax).contains(pars.count) else {
            throw ReplicaError.invalidValue(
                "a course has 1 to \(OpPayload.Limits.holesMax) holes; give one par per hole, like --pars 3,3,4")
        }
        for par in pars { try self.par(par) }
    }

    static func par(_ par: Int) throws {
        guard parRange.contains(par) else {
            throw ReplicaError.invalidValue("par \(par) is impossible: a hole's par is \(parRange.lowerBound) to \(parRange.upperBound)")
        }
    }

    static func strokes(_ strokes: Int) throws {
        guard ScoreEvent.strokeRange.contains(strokes) else { throw ReplicaError.strokesOutOfRange(strokes) }
    }

    static func hole(_ hole: Int, holeCount: Int) throws {
        guard (1...holeCount).contains(hole) else { throw ReplicaError.holeOutOfRange(hole: hole, holeCount: holeCount) }
    }
}
