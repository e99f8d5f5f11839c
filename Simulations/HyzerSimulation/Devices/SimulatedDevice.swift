import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

/// How a device is killed.
enum CrashKind: String, CaseIterable {
    /// Between two operations.
    case idle
    /// During a command: the power goes at one of its writes or syncs, so the user never saw
    /// it succeed (its transaction may or may not have reached the disk).
    case midWrite
    /// During the ingest of a message: only its first segments are ingested.
    case midIngest
    /// During a folder sync: the bundle's temporary file is left half-written.
    case midFolderSync
}

/// One simulated device: its store directory, keys, clock and, while it runs, its replica.
final class SimulatedDevice {
    let index: Int
    let name: String
    let kind: DeviceKind
    let directory: URL
    /// The disk its store's database lives on.
    let disk: SimulatedDisk
    /// Its key: a new one once it goes on under a new key (`device continue`).
    var keys: SigningKeyPair
    var author: AuthorID
    let clock: DeviceClock
    /// Whether it syncs through the shared folder.
    let usesFolder: Bool
    /// The devices it has a direct link with, in index order.
    var peers: [Int] = []
    /// The peers it dials (the others dial it): each phone dials the phones after it, the watch its phone.
    var dials: [Int] = []
    /// The player the device owns: a phone's own player, or for the watch its phone's.
    var ownedPlayer: UUID?
    /// The replica, while the device runs; nil while it is down after a crash.
    var replica: Replica?
    /// The process's memory for partial bundles, shared by its connections; new after a crash.
    var bundleBudget = BundleBudget()
    /// The vector its connections were last told of.
    var announcedVector: VersionVector?
    /// When that vector last changed: from then on the device showed the views it ends with,
    /// once the run converged.
    var vectorChangedAt: UInt64 = 0
    /// A crash waiting for the operation it interrupts.
    var pendingCrash: CrashKind?
    /// The phone a watch is paired with.
    var pairedPhone: Int?
    /// Its vector when its power was last cut: every op it held had been committed, so the
    /// store must hold them all when it restarts.
    var acknowledgedAtPowerCut: VersionVector?
    /// The command a power cut interrupted: its ops may have reached the disk unacknowledged.
    var interruptedCommand: String?

    init(
        index: Int, name: String, kind: DeviceKind, directory: URL, keys: SigningKeyPair, clock: DeviceClock, usesFolder: Bool,
        diskRule: DiskRule = .honest
    ) {
        self.index = index
        self.name = name
        self.kind = kind
        self.directory = directory
        self.disk = SimulatedDisk(directory: directory, rule: diskRule)
        self.keys = keys
        self.author = AuthorID(bytes: keys.publicKey)!
        self.clock = clock
        self.usesFolder = usesFolder
    }

    var isRunning: Bool { replica != nil }

    /// The running replica; the caller checked `isRunning`.
    var running: Replica { replica! }
}
