import Foundation
import HyzerTestSupport
import Testing

/// docs/security.md, "Shared folder and files on disk": the store directory, the secret key
/// and the database (which holds the group secret) are private to their owner, whatever the
/// umask; a key file others can read is refused.
@Suite struct StoreFileModeTests {
    let directory = TemporaryDirectory("store-modes")

    func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test func initMakesTheDirectoryTheKeyAndTheDatabasePrivate() throws {
        let store = directory.path("store")
        let cli = BinaryRunner(store: store)
        let result = try cli.run("init", "--name", "ann-phone", "--owner", "Ann")
        #expect(result.status == 0, "\(result)")
        #expect(try mode(store) == 0o700)
        #expect(try mode(store.appendingPathComponent("identity.key")) == 0o600)
        #expect(try mode(store.appendingPathComponent("replica.sqlite")) == 0o600)

        // The group secret goes into the database, which stays private.
        #expect(try cli.run("group", "create").status == 0)
        #expect(try mode(store.appendingPathComponent("replica.sqlite")) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.path).filter {
            $0.hasSuffix(".tmp") || $0.hasSuffix(".partial")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func aKeyFileOthersCanReadIsRefused() throws {
        let store = directory.path("store")
        let cli = BinaryRunner(store: store)
        #expect(try cli.run("init", "--name", "ann-phone").status == 0)
        let key = store.appendingPathComponent("identity.key")
        #expect(chmod(key.path, 0o644) == 0)

        let result = try cli.run("status")
        #expect(result.status == 1)
        #expect(
            result.stderr == "error: the replica's secret key at \(key.path) is unusable (other users can read or write it (mode 644); "
                + "run `chmod 600 \(key.path)` if nobody else could have copied it); restore the store directory from a backup\n")
        #expect(chmod(key.path, 0o600) == 0)
        #expect(try cli.run("status").status == 0)
    }
}
