import ArgumentParser
import HyzerDomain
import HyzerEngine
import HyzerKit

extension DeviceKind: ExpressibleByArgument {}

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create a replica: its store, its key pair and the seeded courses.")

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "This device's name.") var name: String
    @Option(help: "phone, watch or laptop.") var device: DeviceKind = .laptop
    @Option(help: "Create the player this device belongs to.") var owner: String?

    func run() async throws {
        let engine = try await HyzerEngine.create(at: storeOptions.directory, deviceName: name, kind: device, owner: owner)
        let identity = try await engine.identity()
        print("Created replica \(identity.name) (\(identity.kind.rawValue)) in \(storeOptions.directory.path)")
        print("replica id: \(identity.author.hex)")
        if let owner = identity.owner { print("owner: \(owner.displayName) (\(owner.id.lowercased))") }
    }
}

struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "This replica's id, name, device kind and owner.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    struct Owner: Encodable {
        let id: String
        let name: String
    }
    struct Document: Encodable {
        let replica: String
        let name: String
        let device: String
        let owner: Owner?
        let group: String?
    }

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let identity = try await engine.identity()
        let document = Document(
            replica: identity.author.hex, name: identity.name, device: identity.kind.rawValue,
            owner: identity.owner.map { Owner(id: $0.id.lowercased, name: $0.displayName) },
            group: try await engine.group()?.description)
        if output.json { return try JSONOutput.print(document) }
        var table = Table([("", .left), ("", .left)])
        table.add("replica", document.replica)
        table.add("name", document.name)
        table.add("device", document.device)
        table.add("owner", document.owner.map { "\($0.name) (\($0.id))" } ?? "none")
        table.add("group", document.group ?? "none (sync needs a group)")
        print(table.render().split(separator: "\n").dropFirst().joined(separator: "\n"))
    }
}
