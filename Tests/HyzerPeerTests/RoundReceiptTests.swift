import Foundation
import HyzerTestSupport
import Testing

/// Round receipts through the binary: the finishing device and every participating device that
/// syncs sign the round signature, and `round show` lists who signed what. Three replicas that
/// synced print the same stats, byte for byte.
@Suite struct RoundReceiptTests {
    let directory = TemporaryDirectory("receipts")
    var folder: String { directory.path("shared").path }

    @discardableResult

    func json(_ cli: BinaryRunner, _ arguments: String...) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(try cli.run(arguments).stdout.utf8)) as? [String: Any])
    }

    @Test func participatingDevicesSignTheSameSignature() throws {
        let (a, b, c) = (
            BinaryRunner(store: directory.path("a")), BinaryRunner(store: directory.path("b")), BinaryRunner(store: directory.path("c"))
        )
        try a.ok("init", "--name", "ann-phone", "--owner", "Ann", quiet: false)
        try b.ok("init", "--name", "ben-phone", "--owner", "Ben", quiet: false)
        try c.ok("init", "--name", "cat-laptop", "--owner", "Cat", quiet: false)
        try a.ok("group", "create", quiet: false)
        try b.join(a)
        try c.join(a)
        func syncAll() throws { for cli in [a, b, c] { try cli.ok("sync", "--folder", folder, quiet: false) } }
        try syncAll()
        try syncAll()
        try a.ok("course", "add", "Tiny", "--pars", "3,3,4", quiet: false)
        let round = try a.ok("round", "start", "--course", "Tiny", "--players", "Ann,Ben", quiet: false)
        try a.ok("card", round, "Ann 3, Ben 4", quiet: false)
        try b.ok("sync", "--folder", folder, quiet: false)
        try a.ok("card", round, "Ann 2, Ben par", quiet: false)
        try a.ok("card", round, "Ann bogey, Ben birdie", quiet: false)
        try a.ok("round", "finish", round, quiet: false)
        for _ in 0..<3 { try syncAll() }

        let annDevice = try #require(try json(a, "whoami", "--json")["replica"] as? String)
        let benDevice = try #require(try json(b, "whoami", "--json")["replica"] as? String)
        let shown = try json(a, "round", "show", round, "--json")
        let signature = try #require(shown["signature"] as? String)
        #expect(signature.count == 64)
        let receipts = try #require(shown["receipts"] as? [[String: String]])
        // Cat's laptop plays no part in the round: it signs nothing.
        #expect(receipts == [annDevice, benDevice].sorted().map { ["device": $0, "signature": signature] })
        #expect(try json(b, "round", "show", round, "--json")["receipts"] as? [[String: String]] == receipts)
        let names = annDevice < benDevice ? "ann-phone, ben-phone" : "ben-phone, ann-phone"
        #expect(
            try c.ok("round", "show", round, quiet: false).hasSuffix(
                """

                receipts (round signature \(signature.prefix(16)) here)
                Signature         Devices
                \(signature.prefix(16))  \(names)
                """))
        // Stats are the same bytes on every replica holding the same ops.
        for arguments in [
            ["stats", "player", "Ann", "--json"], ["stats", "head-to-head", "Ben", "Ann", "--json"], ["stats", "course", "Tiny", "--json"],
        ] {
            let outputs = try [a, b, c].map { try $0.run(arguments).stdout }
            #expect(outputs[0].contains(#""roundsPlayed":1"#) || outputs[0].contains(#""sharedRounds":1"#), "\(outputs[0])")
            #expect(Set(outputs).count == 1, "\(arguments): \(outputs)")
        }
        // Signing happens once per device and round: more syncs add nothing.
        let digest = try json(a, "status", "--json")["digest"] as? String
        try syncAll()
        #expect(try json(a, "status", "--json")["digest"] as? String == digest)
    }
}
