import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// What a folder sync remembers of the files it refused or set aside (docs/folder-sync.md): junk
/// costs one read, once.
extension FolderSync {
    /// A file sealed under an epoch this replica does not hold yet: reported when it was read
    /// this sync (`isNew`), and in either case a reason to read its directory's bundles and to
    /// read again once a rekey arrives.
    struct SetAside {
        let rejection: FolderSyncReport.Rejection
        let isNew: Bool
    }

    /// A file refused for its content (or size): not read again until it changes, or until a
    /// build reads a newer format than the one recorded.
    static let refusedForContent: UInt8 = 2
    /// A file sealed under an epoch this replica did not hold: followed by the epoch (u32).
    static let setAsideMarker: UInt8 = 3

    static func setAsideRecord(_ epoch: UInt32) -> [UInt8] {
        [setAsideMarker] + withUnsafeBytes(of: epoch.bigEndian) { Array($0) }
    }

    /// What a file's record says about reading it now.
    enum Remembered {
        /// Not read (or changed since): read it.
        case unread
        /// Read or refused already: skip it.
        case decided
        /// Sealed under an epoch this replica still does not hold: skip it, waiting.
        case setAside(reason: String)
    }

    /// Whether a record (`FolderRecord.bundleFile` or `.refusedVectorFile`: the file's
    /// fingerprint, then `refusedForContent` and the format version, `setAsideMarker` and the
    /// epoch, or `1` for a bundle read) matches `fingerprint`, and what it decided. A
    /// bundle read (`1`) or refused for its content by this format version is skipped; one set
    /// aside is read again once `group` holds its epoch.
    static func refusal(_ record: [UInt8]?, _ fingerprint: [UInt8], _ group: GroupMembership) -> Remembered {
        guard let record, record.starts(with: fingerprint) else { return .unread }
        let outcome = Array(record.dropFirst(fingerprint.count))
        switch outcome.first {
        case setAsideMarker? where outcome.count == 5:
            let epoch = outcome.dropFirst().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard group.secrets[epoch] == nil else { return .unread }
            return .setAside(reason: BundleError.unknownEpoch(epoch, newest: group.epoch).description)
        case refusedForContent? where outcome.count == 2:
            return outcome[1] >= Bundle.formatVersion ? .decided : .unread
        case 1? where outcome.count == 1, nil:
            return .decided
        default:
            return .unread
        }
    }

    /// Whether `file` may be read now: always while nothing was refused this sync, else only
    /// if refused bytes could not pass `FolderLayout.refusedBytesPerSyncMax` with it.
    static func mayRead(_ file: FolderEntry, _ report: FolderSyncReport) -> Bool {
        report.bytesRefused == 0
            || UInt64(report.bytesRefused) + file.size <= UInt64(FolderLayout.refusedBytesPerSyncMax)
    }
}
