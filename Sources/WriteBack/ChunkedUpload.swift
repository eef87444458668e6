import BoxAPI
import Foundation
import Logging
import SystemCalls

/// A large file through a chunked upload session: resume the journaled session if it is alive and
/// holds this content (asking Box which parts it has), else start a new one; send the missing parts,
/// a few at a time, journaling each as Box acknowledges it; commit with the whole file's SHA-1.
struct ChunkedUpload: Sendable {
    let client: BoxClient
    let journal: UploadJournal
    let partsInFlight: Int
    let progress: ProgressBoard
    let logger: Logger

    /// A session closer to expiry than this is not resumed (parts and commit must fit before it ends).
    static let expiryMargin: TimeInterval = 600

    func run(
        entry: UploadEntry, target: UploadTarget, generation: Int64, size: Int64, digest: FileDigest.Digest
    ) async throws -> BoxItem {
        var (session, held) = try await resumable(entry: entry, generation: generation, size: size)
        if session == nil {
            let fresh = try await create(target: target, size: size)
            try journal.saveSession(id: entry.id, fresh, generation: generation, fileSize: size)
            logger.debug("upload session started", metadata: ["session": "\(fresh.id)", "parts": "\(fresh.totalParts)"])
            session = fresh
            held = []
        }
        guard let session else { throw WriteBackError("no upload session") }
        var parts = Dictionary(held.map { ($0.offset, $0) }, uniquingKeysWith: { first, _ in first })
        progress.set(entry.id, done: parts.values.reduce(0) { $0 + $1.size }, total: size)
        let missing = PartPlan.missing(fileSize: size, partSize: session.partSize, uploadedOffsets: Set(parts.keys))
        for part in try await send(missing, of: entry, session: session, size: size) { parts[part.offset] = part }

        do {
            let item = try await client.commitUploadSession(
                session, parts: parts.values.sorted { $0.offset < $1.offset }, fileSHA1: digest,
                ifMatch: target.fileID == nil ? nil : versionETag(target), contentModifiedAt: entry.contentModifiedAt)
            try? journal.clearSession(id: entry.id)
            return item
        } catch let error as BoxAPIError where error.kind == .notFound || error.status == 400 {
            // Session gone, or Box refused the assembled bytes (content changed): start over next time.
            try? journal.clearSession(id: entry.id)
            throw error
        }
    }

    /// The journaled session and the parts Box holds for it, if it can be resumed.
    private func resumable(
        entry: UploadEntry, generation: Int64, size: Int64
    ) async throws -> (UploadSession?, [UploadPart]) {
        guard let session = entry.session else { return (nil, []) }
        let alive = session.expiresAt.map { $0.timeIntervalSinceNow > Self.expiryMargin } ?? true
        guard alive, entry.sessionGeneration == generation, entry.sessionFileSize == size else {
            logger.debug("dropping an upload session for other content", metadata: ["session": "\(session.id)"])
            try? await client.abortUploadSession(session)
            try journal.clearSession(id: entry.id)
            return (nil, [])
        }
        let remote: [UploadPart]
        do {
            remote = try await client.uploadedParts(session)
        } catch let error as BoxAPIError where error.kind == .notFound || error.status == 403 {
            try journal.clearSession(id: entry.id)
            return (nil, [])
        }
        let journaled = Dictionary(entry.parts.map { ($0.offset, $0) }, uniquingKeysWith: { first, _ in first })
        var held: [UploadPart] = []
        for var part in remote {
            if part.sha1 == nil { part.sha1 = journaled[part.offset]?.sha1 }
            if part.sha1 == nil { part.sha1 = try await localSHA1(of: part, in: entry) }
            held.append(part)
        }
        logger.info(
            "resuming upload session", metadata: ["session": "\(session.id)", "parts held": "\(held.count)"])
        return (session, held)
    }

    private func create(target: UploadTarget, size: Int64) async throws -> UploadSession {
        switch target {
        case .newFile(let parentID, let name):
            return try await client.createUploadSession(parentID: parentID, name: name, size: size)
        case .newVersion(let fileID, _, _, _, _):
            return try await client.createUploadSession(fileID: fileID, size: size)
        }
    }

    private func versionETag(_ target: UploadTarget) -> String? {
        if case .newVersion(_, _, _, let etag, _) = target { return etag }
        return nil
    }

    /// Sends `ranges` with at most `partsInFlight` PUTs at once; each acknowledged part is journaled
    /// before the next one starts in its slot.
    private func send(
        _ ranges: [Range<Int64>], of entry: UploadEntry, session: UploadSession, size: Int64
    ) async throws -> [UploadPart] {
        try await withThrowingTaskGroup(of: UploadPart.self) { group in
            var pending = ranges[...]
            var sent: [UploadPart] = []
            func launch() {
                guard let range = pending.popFirst() else { return }
                group.addTask { try await sendPart(range, of: entry, session: session, size: size) }
            }
            for _ in 0..<partsInFlight { launch() }
            while let part = try await group.next() {
                try journal.addPart(id: entry.id, sessionID: session.id, part)
                progress.add(entry.id, bytes: part.size)
                sent.append(part)
                launch()
            }
            return sent
        }
    }

    /// One part. A 409 means Box already holds a part at this offset (an earlier attempt whose answer
    /// was lost): it is looked up instead of sent again. 404/410/416: the session is unusable.
    private func sendPart(
        _ range: Range<Int64>, of entry: UploadEntry, session: UploadSession, size: Int64
    ) async throws -> UploadPart {
        do {
            let path = entry.stagingPath
            let digest = try await Syscall.offThePool { () throws in
                try FileDigest.sha1(path: path, offset: range.lowerBound, length: Int64(range.count))
            }
            return try await client.uploadPart(session, path: path, range: range, fileSize: size, sha1: digest)
        } catch let error as BoxAPIError where error.status == 409 {
            let held = try await client.uploadedParts(session)
            if var part = held.first(where: { $0.offset == range.lowerBound && $0.size == Int64(range.count) }) {
                if part.sha1 == nil { part.sha1 = try await localSHA1(of: part, in: entry) }
                return part
            }
            throw error
        } catch let error as BoxAPIError where error.kind == .notFound || error.status == 416 {
            try? journal.clearSession(id: entry.id)
            throw BoxAPIError(
                kind: .server, status: error.status, code: "session_unusable",
                message: "upload session can no longer take parts; a new one will be started", request: error.request)
        }
    }

    /// Hashed off the uploader's thread (see `UploadAttempt`): a part is megabytes.
    private func localSHA1(of part: UploadPart, in entry: UploadEntry) async throws -> String {
        let path = entry.stagingPath
        return try await Syscall.offThePool { () throws in
            try FileDigest.sha1(path: path, offset: part.offset, length: part.size).hex
        }
    }
}
