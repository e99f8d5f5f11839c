import Foundation
import HyzerWeb
import Testing

/// The viewing token's errors speak to any app (docs/architecture.md, "Errors"): no flag, no
/// `hyzer-peer` command to run.
@Suite struct ViewingTokenErrorTests {
    @Test(arguments: [
        ViewingTokenError.notASalt(path: "/tmp/store/web-view-salt"), .cannotWrite(path: "/tmp/store/.web-view-salt.1"),
        .cannotReplace(path: "/tmp/store/web-view-salt"),
    ])
    func aMessageNamesNoFlagAndNoCommand(_ error: ViewingTokenError) {
        #expect(!error.description.contains("--"))
        #expect(!error.description.contains("hyzer-peer"))
        #expect(error.localizedDescription == error.description)
    }
}
