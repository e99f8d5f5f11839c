import ArgumentParser
import Foundation
import HyzerCrypto
import HyzerKit
import HyzerSync

struct GroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "Who may sync with whom.",
        subcommands: [Create.self, Invite.self, Join.self, Remove.self, Rekey.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a group with a new secret; prints its id.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let replica = try storeOptions.open()
            if let current = try replica.group() {
                throw ReplicaError.invalidValue(
                    "this replica already belongs to group \(current.id.lowercased); `hyzer-peer group invite` prints its token")
            }
            let group = GroupInvite.newGroup(organizer: replica.author)
            try replica.join(group)
            print(group.id.lowercased)
        }
    }

    struct Invite: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the token that lets another replica join (it holds the group secret: share it privately).")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            print(GroupInvite.token(for: try storeOptions.open().requireGroup()))
        }
    }

    struct Join: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join the group of an invite token.",
            discussion: """
                The token holds the group secret. Given as an argument it shows in `ps` and the shell's \
                history; `--token-file -` reads it from standard input instead.
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

        func run() throws {
            let group = try GroupInvite.membership(fromToken: try readToken())
            try storeOptions.open().join(group)
            print("joined group \(group.id.lowercased)")
        }

        private func readToken() throws -> String {
            if let token { return token }
            guard tokenFile == "-" else {
                return String(decoding: try UserFile.read(tokenFile ?? "", maximumBytes: Self.tokenBytesMax), as: UTF8.self)
            }
            let bytes = Array(FileHandle.standardInput.readData(ofLength: Self.tokenBytesMax + 1))
            guard bytes.count <= Self.tokenBytesMax else {
                throw ReplicaError.invalidValue(
                    "standard input holds more than a token; pipe in only the line `hyzer-peer group invite` printed")
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a device from the group and rekey it (the organizer only): none of its later ops counts anywhere.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The device's id, id prefix or name.") var device: String

        func run() throws {
            let removal = try storeOptions.open().removeMember(device, newSecret: SecureRandom.bytes(GroupMembership.secretBytes))
            print(
                "removed device \(removal.device.hex) (its ops up to \(removal.through) still count); the group key is now epoch \(removal.epoch)"
            )
        }
    }

    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the group secret (the organizer only), sealed to every member that was not removed.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let rekey = try storeOptions.open().rekeyGroup(newSecret: SecureRandom.bytes(GroupMembership.secretBytes))
            print(
                "the group key is now epoch \(rekey.epoch), sealed to \(rekey.recipients) devices; older invite tokens no longer let anyone in"
            )
        }
    }
}
