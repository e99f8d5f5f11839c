import Foundation
import HyzerBench
import HyzerKit
import HyzerTestSupport
import HyzerWeb
import Testing

/// The viewing token: derived from the group secret, needed beyond loopback, revoked by a new salt.
@Suite struct AccessTests {
    let token = "00112233445566778899aabbccddeeff"

    @Test func withoutTheTokenNothingButHealthIsServed() async throws {
        let served = try await ServedRound(access: .token(token))
        for path in ["/", "/rounds/latest", "/api/rounds", "/metrics", "/rounds/latest/events"] {
            #expect(try await served.get(path).status == 401, "GET \(path)")
            #expect(try await served.get(path + "?token=00112233445566778899aabbccddeefe").status == 401, "wrong token on \(path)")
            #expect(try await served.get(path, headers: ["Cookie: hyzer_view=0011"]).status == 401, "short cookie on \(path)")
        }
        #expect(try await served.get("/health").status == 200)
    }

    @Test func theTokenOnceThenTheCookie() async throws {
        let served = try await ServedRound(access: .token(token))
        let first = try await served.get("/rounds/latest?token=\(token)")
        #expect(first.status == 200)
        #expect(first.head.lowercased().contains("set-cookie: hyzer_view=\(token)"), "\(first.head)")
        #expect(first.head.lowercased().contains("httponly"))
        #expect(try await served.get("/players/Ann", headers: ["Cookie: hyzer_view=\(token)"]).status == 200)
        #expect(try await served.get("/metrics", headers: ["Authorization: Bearer \(token)"]).status == 200)
    }

    @Test func theTokenComesFromTheGroupSecretAndTheSalt() throws {
        let directory = TemporaryDirectory("hyzer-token")
        let secret = [UInt8](repeating: 7, count: 32)
        let first = try ViewingToken.current(groupSecret: secret, store: directory.url)
        #expect(first.count == 32 && first.allSatisfy(\.isHexDigit))
        #expect(try ViewingToken.current(groupSecret: secret, store: directory.url) == first, "stable while the salt stays")
        #expect(try ViewingToken.current(groupSecret: [UInt8](repeating: 8, count: 32), store: directory.url) != first, "another group")
        let rotated = try ViewingToken.current(groupSecret: secret, store: directory.url, rotate: true)
        #expect(rotated != first)
        #expect(try ViewingToken.current(groupSecret: secret, store: directory.url) == rotated)
    }

    @Test func aSymlinkedOrOversizedSaltIsRefused() throws {
        let directory = TemporaryDirectory("hyzer-token")
        let salt = directory.path(ViewingToken.saltFileName)
        try FileManager.default.createSymbolicLink(at: salt, withDestinationURL: URL(fileURLWithPath: "/etc/hostname"))
        #expect(throws: ViewingTokenError.notASalt(path: salt.path)) {
            try ViewingToken.current(groupSecret: [UInt8](repeating: 7, count: 32), store: directory.url)
        }
        try FileManager.default.removeItem(at: salt)
        try Data(repeating: 0x41, count: 4096).write(to: salt)
        #expect(throws: ViewingTokenError.notASalt(path: salt.path)) {
            try ViewingToken.current(groupSecret: [UInt8](repeating: 7, count: 32), store: directory.url)
        }
    }

    @Test func comparisonNeedsEveryCharacter() {
        #expect(ViewingToken.matches("abcd", "abcd"))
        #expect(!ViewingToken.matches("abce", "abcd"))
        #expect(!ViewingToken.matches("abc", "abcd"))
        #expect(!ViewingToken.matches("", "abcd"))
    }
}
