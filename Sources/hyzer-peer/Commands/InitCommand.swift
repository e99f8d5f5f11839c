import ArgumentParser
import HyzerDomain
import HyzerKit

extension DeviceKind: ExpressibleByArgument {}

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create a replica: its store, its key pair and the seeded courses.")

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "This device's name.") var name: String
    @Option(help: "phone, watch or laptop.") var device: DeviceKind = .laptop
    @Option(help: "Create the player this device belongs to.") var owner: String?

    func run() throws {
        let replica = try Replica.create(at: storeOptions.directory, name: name, kind: device, owner: owner)
        let identity = try replica.identity()
        print("Created replica \(identity.name) (\(identity.kind.rawValue)) in \(storeOptions.directory.path)")
        print("replica id: \(identity.author.hex)")
        if let owner = identity.owner { print("owner: \(owner.displayName) (\(owner.id.lowercased))") }
    }
}

struct WhoamiCommand: ParsableCommand {
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

    func run() throws {
        let replica = try storeOptions.open()
        let identity = try replica.identity()
        let document = Document(
            replica: identity.author.hex, name: identity.name, device: identity.kind.rawValue,
            owner: identity.owner.map { Owner(id: $0.id.lowercased, name: $0.displayName) },
            group: try replica.group()?.id.lowercased)
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
