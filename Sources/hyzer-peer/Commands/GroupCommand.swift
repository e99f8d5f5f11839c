import ArgumentParser
import Foundation
import HyzerEngine
import HyzerKit

struct GroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "Who may sync with whom.",
        subcommands: [Create.self, Invite.self, Join.self, Members.self, Remove.self, Rekey.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a group with a new secret; prints its id.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            if let current = try await engine.group() {
                throw CommandLineError.groupExists(current.uuid)
            }
            print(try await engine.createGroup())
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a token that lets other devices join, for a limited time and number of devices.",
            discussion: """
                The token holds no group secret: a member admits each device that asks with it (at its next sync \
                with the device, over TCP or through the folder) while the invitation has neither expired nor been \
                used up, and seals it the group secret. Share the token privately all the same: whoever holds it can \
                use it.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: ArgumentHelp("How long the token admits devices: minutes, hours or days, as 30m, 12h or 7d.", valueName: "TIME"))
        var expires = "7d"
        @Option(help: "How many devices the token admits.") var uses = 1

        func run() async throws {
            guard let milliseconds = Self.milliseconds(expires) else {
                throw ValidationError("--expires takes minutes, hours or days up to a year, as 30m, 12h or 7d; '\(expires)' is none")
            }
            print(try await storeOptions.openEngine().invite(uses: uses, expires: .milliseconds(milliseconds)))
        }

        /// `30m`, `12h`, `7d` in milliseconds; `nil` for anything else or more than a year.
        static func milliseconds(_ text: String) -> UInt64? {
            let units: [Character: UInt64] = ["m": 60_000, "h": 3_600_000, "d": 86_400_000]
            guard let unit = text.last.flatMap({ units[$0] }), let count = UInt64(text.dropLast()), count > 0 else { return nil }
            let (total, overflow) = count.multipliedReportingOverflow(by: unit)
            return overflow || total > 366 * 86_400_000 ? nil : total
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept an invite token: this device joins at its next sync with a member.",
            discussion: """
                Given as an argument the token shows in `ps` and the shell's history; `--token-file -` reads it \
                from standard input instead.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The token `group invite` printed (prefer --token-file: an argument shows in `ps`).") var token: String?
        @Option(
            name: .customLong("token-file"), help: ArgumentHelp("Read the token from this file; - reads standard input.", valueName: "PATH")
        )
        var tokenFile: String?

        /// More than any token; a bound on what is read from a file or standard input.
        static let tokenBytesMax = 4_096

        func validate() throws {
            guard (token == nil) != (tokenFile == nil) else {
                throw ValidationError("give the token either as an argument or with --token-file PATH (- for standard input), not both")
            }
        }

        func run() async throws {
            let token = try readToken()
            // A token that is none is refused before the store is opened.
            _ = try Invitation(token: token)
            let group = try await storeOptions.openEngine().acceptInvitation(token: token)
            print(
                "invitation to group \(group) accepted; this device joins at its next sync with a member: "
                    + "`hyzer-peer sync --peer HOST:PORT`, `hyzer-peer sync --folder DIR`, or `hyzer-peer serve --discover` on the LAN")
        }

        private func readToken() throws -> String {
            if let token { return token }
            guard tokenFile == "-" else {
                return String(decoding: try UserFile.read(tokenFile ?? "", maximumBytes: Self.tokenBytesMax), as: UTF8.self)
            }
            let bytes = Array(FileHandle.standardInput.readData(ofLength: Self.tokenBytesMax + 1))
            guard bytes.count <= Self.tokenBytesMax else {
                throw CommandLineError.standardInputTooLong
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The group's members: those not removed are exactly the devices the next rekey is sealed to.",
            discussion: """
                A member is the organizer, a device a member admitted with an invitation, or the successor of a member \
                (`device continue`); ops of any other device count nowhere (docs/security.md, "Membership"). In a group \
                created before organizers existed, every device heard from.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions

        struct Entry: Encodable {
            let id: String
            let name: String?
            let kind: String?
            let owns: [String]
            let lastSequence: UInt64
            let lastSeen: String?
            let removed: Bool
            let organizer: Bool
            let isThisReplica: Bool
        }

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            let entries = try await engine.members().map { member in
                Entry(
                    id: member.id.hex, name: member.name, kind: member.kind?.rawValue, owns: member.owns, lastSequence: member.lastSequence,
                    lastSeen: member.lastMilliseconds.map(DateText.minute), removed: member.removed, organizer: member.isOrganizer,
                    isThisReplica: member.id == engine.device)
            }
            if output.json { return try JSONOutput.print(entries) }
            var table = Table([("Device", .left), ("Kind", .left), ("Id", .left), ("Owns", .left), ("Last op", .left), ("", .left)])
            for entry in entries {
                table.add(
                    (entry.name ?? "(not heard from)") + (entry.isThisReplica ? " *" : ""), entry.kind ?? "", String(entry.id.prefix(12)),
                    entry.owns.joined(separator: ", "), entry.lastSeen.map { "#\(entry.lastSequence) \($0)" } ?? "none",
                    entry.removed ? "removed" : entry.organizer ? "organizer" : "")
            }
            print(table.render())
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a device from the group and rekey it (the organizer only): none of its later ops counts anywhere.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The device's id, id prefix or name.") var device: String

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            let removal = try await engine.removeMember(try await engine.device(matching: device))
            print(
                "removed device \(removal.device.hex) (its ops up to \(removal.through) still count); the group key is now epoch \(removal.epoch)"
            )
        }
    }

    struct Rekey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the group secret (the organizer only), sealed to every member that was not removed.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let rekey = try await storeOptions.openEngine().rekeyGroup()
            print(
                "the group key is now epoch \(rekey.epoch), sealed to \(rekey.recipients) devices"
            )
        }
    }
}
