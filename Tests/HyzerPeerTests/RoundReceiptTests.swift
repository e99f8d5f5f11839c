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
    func ok(_ cli: BinaryRunner, _ arguments: String...) throws -> String {
        let result = try cli.run(arguments)
        #expect(result.status == 0, "\(arguments.joined(separator: " ")) failed: \(result)")
        return result.output
    }

    func json(_ cli: BinaryRunner, _ arguments: String...) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(try cli.run(arguments).stdout.utf8)) as? [String: Any])
    }

    @Test func participatingDevicesSignTheSameSignature() throws {
        let (a, b, c) = (
            BinaryRunner(store: directory.path("a")), BinaryRunner(store: directory.path("b")), BinaryRunner(store: directory.path("c"))
        )
        try ok(a, "init", "--name", "ann-phone", "--owner", "Ann")
        try ok(b, "init", "--name", "ben-phone", "--owner", "Ben")
        try ok(c, "init", "--name", "cat-laptop", "--owner", "Cat")
        try ok(a, "group", "create")
        let token = try ok(a, "group", "invite")
        try ok(b, "group", "join", token)
        try ok(c, "group", "join", token)
        func syncAll() throws { for cli in [a, b, c] { try ok(cli, "sync", "--folder", folder) } }
        try syncAll()
        try syncAll()
        try ok(a, "course", "add", "Tiny", "--pars", "3,3,4")
        let round = try ok(a, "round", "start", "--course", "Tiny", "--players", "Ann,Ben")
        try ok(a, "card", round, "Ann 3, Ben 4")
        try ok(b, "sync", "--folder", folder)
        try ok(a, "card", round, "Ann 2, Ben par")
        try ok(a, "card", round, "Ann bogey, Ben birdie")
        try ok(a, "round", "finish", round)
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
            try ok(c, "round", "show", round).hasSuffix(
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
