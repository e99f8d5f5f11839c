import Foundation

extension BinaryRunner {
    /// A phone's store made with `init` in `directory`, owned by a new player `owner`.
    public static func phone(_ name: String, owner: String, in directory: TemporaryDirectory) throws -> BinaryRunner {
        let cli = BinaryRunner(store: directory.path(name))
        try cli.ok("init", "--name", name, "--device", "phone", "--owner", owner, quiet: false)
        return cli
    }

    /// The names `player list --json` shows, sorted.
    public func playerNames() throws -> [String] {
        let list = try JSONSerialization.jsonObject(with: Data(try ok("player", "list", "--json").utf8)) as? [[String: Any]] ?? []
        return list.compactMap { $0["name"] as? String }.sorted()
    }
}
