import ArgumentParser
import HyzerKit
import HyzerSync

struct GroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "Who may sync with whom.", subcommands: [Create.self, Invite.self, Join.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a group with a new secret; prints its id.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let replica = try storeOptions.open()
            if let current = try replica.group() {
                throw ReplicaError.invalidValue(
                    "this replica already belongs to group \(current.id.lowercased); `hyzer-peer group invite` prints its token")
            }
            let group = GroupInvite.newGroup()
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
        static let configuration = CommandConfiguration(abstract: "Join the group of an invite token.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The token `group invite` printed.") var token: String

        func run() throws {
            let group = try GroupInvite.membership(fromToken: token)
            try storeOptions.open().join(group)
            print("joined group \(group.id.lowercased)")
        }
    }
}
