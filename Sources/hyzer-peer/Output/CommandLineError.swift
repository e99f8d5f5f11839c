import Foundation
import HyzerKit
import HyzerSync

/// What the command line itself refuses or fails at: its arguments, the files it reads, a sync
/// it drives, the demo. Printed as `error: SENTENCE` on standard error, exit status 1.
enum CommandLineError: Error, CustomStringConvertible {
    /// A member refused this device's join request (through the shared folder).
    case refusedByMember(AdmissionRefusal)
    /// `sync --peer` was given text that is not HOST:PORT.
    case notAPeerAddress(String)
    /// `serve --listen` or `serve --dial` was given text that is not HOST:PORT.
    case notHostPort(String)
    /// `serve --http` was given text that is neither HOST:PORT nor PORT.
    case notAWebAddress(String)
    /// `serve --publish` names a prefix that holds the group's objects of `--bucket`.
    case publishOverGroup(String)
    /// `serve --log-level` was given an unknown level.
    case notALogLevel(String)
    /// `sync --peer` could not reach the peer.
    case dialFailed(DialFailure)
    /// A sync with the peer at `address` did not happen.
    case peerSync(PeerSyncError, address: PeerAddress)
    /// `group create` on a replica of a group (its id).
    case groupExists(UUID)
    /// `group join --token-file -` read more than a token from standard input.
    case standardInputTooLong
    /// `stats versus` named one player twice.
    case samePlayer(String, String)
    /// An entry of `course add --pars` that is not a number.
    case parNotANumber(String)
    /// A file named on the command line that cannot be read (`reason` says why).
    case unreadableFile(path: String, reason: String)
    /// A UDisc file that cannot be read, is larger than `mebibytes` MiB or is not UTF-8.
    case udiscFileUnreadable(path: String)
    case udiscFileTooLarge(path: String, mebibytes: Int)
    case udiscFileNotText(path: String)
    /// A UDisc file that is not a scorecard export the replica takes.
    case udiscFileRefused(path: String, UDiscImportError)
    /// The demo's devices were not admitted, or did not converge.
    case tourNotAdmitted
    case demoDidNotConverge

    var description: String {
        switch self {
        case .refusedByMember(let refusal): "a member refused this device: \(refusal)"
        case .notAPeerAddress(let text): "'\(text)' is not HOST:PORT; give the address `hyzer-peer serve --listen` uses"
        case .notHostPort(let text): "'\(text)' is not HOST:PORT"
        case .notAWebAddress(let text): "'\(text)' is not HOST:PORT or PORT for --http"
        case .publishOverGroup(let url):
            "--publish \(url) holds the group's objects of --bucket, and whoever reads the pages could read them: publish to a prefix of its own"
        case .notALogLevel(let text): "'\(text)' is not a log level; use trace, debug, info, notice, warning, error or critical"
        case .dialFailed(let failure): "\(failure); check that `hyzer-peer serve` runs there and the address is right"
        case .peerSync(let error, let address): Self.sentence(error, address: address)
        case .groupExists(let group):
            "this replica already belongs to group \(group.lowercased); `hyzer-peer group invite` prints its token"
        case .standardInputTooLong: "standard input holds more than a token; pipe in only the line `hyzer-peer group invite` printed"
        case .samePlayer(let player, let opponent): "'\(player)' and '\(opponent)' are the same player; name two different players"
        case .parNotANumber(let text): "'\(text)' in --pars is not a number; give one par per hole, like --pars 3,3,4"
        case .unreadableFile(let path, let reason): "\(path): \(reason)"
        case .udiscFileUnreadable(let path): "\(path): the file cannot be read; nothing was imported"
        case .udiscFileTooLarge(let path, let mebibytes): "\(path): the file is larger than \(mebibytes) MiB; nothing was imported"
        case .udiscFileNotText(let path): "\(path): the file is not UTF-8 text; nothing was imported"
        case .udiscFileRefused(let path, let error): "\(path): \(ErrorSentence.sentence(error)); nothing was imported"
        case .tourNotAdmitted: "the tour's devices were not admitted"
        case .demoDidNotConverge: "the demo replicas did not converge within 10 seconds"
        }
    }

    /// The sentence for a sync with `address` that did not happen.
    private static func sentence(_ error: PeerSyncError, address: PeerAddress) -> String {
        switch error {
        case .notAdmitted:
            "\(address) did not admit this device: it does not hold the invitation yet (sync it with the device that printed the token first) or is not a member of the group"
        case .joinRefused(let refusal): "a member refused this device: \(refusal)"
        case .answerForAnotherDevice: "\(address) sent an answer for another device"
        case .listenerBusy(let busy): "\(address) did not take the join request: \(SyncFailure.listenerBusy(busy))"
        case .failed(let failure): "sync with \(address) failed: \(failure); nothing partial was kept"
        }
    }
}
