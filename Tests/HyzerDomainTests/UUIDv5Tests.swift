import Foundation
import HyzerDomain
import Testing

@Suite("UUIDv5 (RFC 9562 §5.5)")
struct UUIDv5Tests {
    static let dns = UUID(
        uuid: (0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8))

    @Test(
        "known name-based ids",
        arguments: [
            ("www.example.com", "2ed6657d-e927-568b-95e1-2665a8aea6a2"),
            ("python.org", "886313e1-3b8a-5372-9b90-0c9aee199e5d"),
            ("seeded-courses.hyzer-peer", "c3cf0487-92c8-5423-9963-1148889eafd4"),
        ]
    )
    func vectors(name: String, expected: String) {
        let actual = UUID(v5: name, namespace: Self.dns).uuidString.lowercased()
        #expect(actual == expected, "UUIDv5(DNS, \(name)) is \(actual), expected \(expected)")
    }

    @Test("version 5 and the RFC variant, for any name", arguments: ["", "a", "Morley Field", "Émile 🥏"])
    func versionAndVariant(name: String) {
        let id = UUID(v5: name, namespace: Self.dns).uuid
        #expect(id.6 >> 4 == 5)
        #expect(id.8 >> 6 == 0b10)
    }

    @Test("the namespace matters and the same input gives the same id")
    func deterministic() {
        let other = UUID(v5: "x", namespace: Self.dns)
        #expect(UUID(v5: "www.example.com", namespace: other) != UUID(v5: "www.example.com", namespace: Self.dns))
        #expect(UUID(v5: "same", namespace: other) == UUID(v5: "same", namespace: other))
    }
}
