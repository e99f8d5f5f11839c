import ArgumentParser
import HyzerEngine
import HyzerKit

struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Devices of the group, and pairing a device with its owner.",
        subcommands: [List.self, Link.self, Continue.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Devices this replica knows, with the players they own.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions

        struct Entry: Encodable {
            let id: String
            let name: String
            let kind: String
            let owns: [String]
            let isThisReplica: Bool
        }

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            let ownership = try await engine.ownership()
            let players = try await engine.players()
            let entries = try await engine.devices().map { device in
                Entry(
                    id: device.id.hex, name: device.name, kind: device.kind.rawValue,
                    owns: players.filter { ownership.device(device.id, owns: ParticipantID(player: $0.id)) }.map(\.displayName),
                    isThisReplica: device.id == engine.device)
            }
            if output.json { return try JSONOutput.print(entries) }
            var table = Table([("Device", .left), ("Kind", .left), ("Id", .left), ("Owns", .left)])
            for entry in entries {
                table.add(
                    entry.name + (entry.isThisReplica ? " *" : ""), entry.kind, String(entry.id.prefix(12)),
                    entry.owns.joined(separator: ", "))
            }
            print(table.render())
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make DEVICE an owner of PLAYER (run on a device that owns PLAYER).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The device's id, id prefix or name.") var device: String
        @Option(help: "The player the device belongs to.") var owner: String

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            try await engine.linkDevice(try await engine.device(matching: device), owner: try await engine.player(matching: owner))
            print("linked \(device) to \(owner)")
        }
    }

    struct Continue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Continue this store under a new device key linked to the same owner (after a restore or a copy).")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let (engine, predecessor) = try await HyzerEngine.continueUnderNewKey(at: storeOptions.directory)
            print("this store continues as device \(engine.device.hex), successor of \(predecessor.hex)")
        }
    }
}
