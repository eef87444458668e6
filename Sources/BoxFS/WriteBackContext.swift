import Foundation
import WriteBack

/// What a read-write mount needs to keep written content safe until Box has it: the journal (the
/// durable list of dirty files), the uploader that sends them, and the folder of local copies.
/// The CLI builds it (it owns the paths and the lock that keeps two daemons off one journal).
public struct WriteBackContext: Sendable {
    public let journal: UploadJournal
    public let uploader: Uploader
    /// Where staging files are made; on the same filesystem as the journal.
    public let stagingDirectory: URL
    /// Where content Box can no longer take is kept (its folder was deleted on Box), shown by `boxfs status`; the
    /// uploader writes there. Nil: such uploads stay parked.
    public let recovery: RecoveryPlace?

    public init(journal: UploadJournal, uploader: Uploader, stagingDirectory: URL, recovery: RecoveryPlace? = nil) {
        self.journal = journal
        self.uploader = uploader
        self.stagingDirectory = stagingDirectory
        self.recovery = recovery
    }

    /// A new, unique staging file path.
    func newStagingPath() -> String {
        stagingDirectory.appendingPathComponent(UUID().uuidString).path
    }
}
