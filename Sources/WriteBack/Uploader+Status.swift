import Foundation

extension Uploader {
    /// Pending and running uploads with progress, and recent errors.
    public func status() -> UploaderStatus {
        let rows = (try? journal.pending()) ?? []
        let journaled = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let entries = machines.keys.sorted().compactMap { id -> UploaderStatus.Entry? in
            guard let machine = machines[id] else { return nil }
            let state: String
            var next: Date?
            switch machine.phase {
            case .retrying(let until), .parked(let until, _): next = Date().addingTimeInterval(max(0, until - now()))
            default: break
            }
            switch machine.phase {
            case .idle: state = machine.isOpen ? "writing" : "waiting"
            case .waiting: state = "waiting"
            case .uploading: state = running[id] == nil ? "queued" : "uploading"
            case .retrying: state = "retrying"
            case .parked: state = "parked"
            case .done: state = "done"
            }
            let sent = progress.get(id)
            return UploaderStatus.Entry(
                id: id, target: machine.target, state: state, bytesSent: sent?.done ?? 0, bytesTotal: sent?.total ?? 0,
                attempts: journaled[id]?.attempts ?? 0, lastError: journaled[id]?.lastError, nextAttempt: next)
        }
        return UploaderStatus(entries: entries, recentErrors: recentErrors)
    }
}
