import BoxAPI
import Foundation
import SystemCalls
import Transfers

/// `boxfs pin`, `boxfs unpin`, `boxfs pinned` through the command channel, and what pins show elsewhere: the
/// `user.box.pinned` attribute and the pinned line of `boxfs status`. The work itself is the `Pinner`'s.
extension FileSystem {
    /// Starts keeping the pinned items (the daemon calls this once mounted).
    public func startPinning() {
        guard let pinner else { return }
        pinner.lister.withLock { $0 = { [weak self] id in
            guard let self else { throw CancellationError() }
            return try await self.fetchAndStoreListing(folderID: id)
        } }
        pinner.start()
    }

    /// Stops the pinner (at unmount); a fetch under way is cancelled, and finished at the next mount.
    public func stopPinning() { pinner?.stop() }

    /// Pins the item: refused, with nothing pinned, when its files not kept yet need more room than pinned
    /// files have left (`pin_size`, or the disk's free space less `cache_min_free`).
    func pin(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let pinner = try requirePinner()
        let item = try await commandTarget(request, folder: folder)
        let path = request.pinPath ?? item.name
        var answer = CommandAnswer()
        if pinner.pin(item.id) != nil {
            answer.pins = [pinAnswer(for: item.id, pinner: pinner)].compactMap { $0 }
            return answer
        }
        let pin = PinSet.Pin(id: item.id, kind: item.kind == .folder ? "folder" : "file", path: path, pinnedAt: Date())
        let walk: Pinner.Walk
        do { walk = try await pinner.walk(pin) } catch {
            throw commandFailure(error, "listing \(Pinner.shown(path)) to pin it")
        }
        let tracked = pinner.state.withLock { Set($0.files.keys) }
        let needed = walk.files.filter { !tracked.contains($0.file.id) && !store.isComplete($0.file) }
            .reduce(Int64(0)) { $0 + store.diskBytes(of: $1.file) }
        let room = max(0, store.pinRoom - pinner.bytesStillToFetch())
        guard needed <= room else {
            throw FSError(.noSpace, "\(Pinner.shown(path)): not pinned: its files need \(Self.byteText(needed)) on this "
                + "machine, but pinned files have only \(Self.byteText(room)) left (\(pinBudgetName))")
        }
        // The pin set's save syncs it: off Swift's cooperative pool.
        do { try await Syscall.offThePool { () throws in try pinner.add(pin, walk) } } catch {
            throw FSError(.io, "\(Pinner.shown(path)): not pinned: the pin set could not be saved: \(error)".oneLine)
        }
        logger.info("pinned \(Pinner.shown(path)) (\(walk.files.count) file(s), \(needed) bytes to fetch)")
        answer.pins = [pinAnswer(for: item.id, pinner: pinner)].compactMap { $0 }
        return answer
    }

    func unpin(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let pinner = try requirePinner()
        let item = try await commandTarget(request, folder: folder)
        let path = request.pinPath ?? item.name
        let before = pinAnswer(for: item.id, pinner: pinner)
        let removed: PinSet.Pin?
        do { removed = try await Syscall.offThePool { () throws in try pinner.remove(item.id) } } catch {
            throw FSError(.io, "\(Pinner.shown(path)): not unpinned: the pin set could not be saved: \(error)".oneLine)
        }
        guard removed != nil else {
            if let covering = pinner.coveringPin(ofItem: item.id) {
                throw FSError(.invalidArgument, "\(Pinner.shown(path)) is not pinned itself but as part of "
                    + "\(Pinner.shown(covering.path)); unpin that")
            }
            throw FSError(.invalidArgument, "\(Pinner.shown(path)) is not pinned")
        }
        logger.info("unpinned \(Pinner.shown(path))")
        var answer = CommandAnswer()
        answer.pins = before.map { [$0] } ?? []
        return answer
    }

    func pinned() -> CommandAnswer {
        var answer = CommandAnswer()
        guard let pinner else {
            answer.pins = []
            return answer
        }
        let ids = pinner.state.withLock { $0.set.pins.map(\.id) }
        answer.pins = ids.compactMap { pinAnswer(for: $0, pinner: pinner) }
        return answer
    }

    private func requirePinner() throws(FSError) -> Pinner {
        guard let pinner else {
            throw FSError(.notSupported, "pinning keeps files in the disk cache, and this mount has none (cache=off)")
        }
        return pinner
    }

    private func pinAnswer(for id: String, pinner: Pinner) -> CommandAnswer.Pin? {
        guard let pin = pinner.pin(id) else { return nil }
        let progress = pinner.progress(of: id)
        let error = pinner.state.withLock { $0.pinErrors[id] }
        return CommandAnswer.Pin(
            path: pin.path, id: pin.id, kind: pin.kind, files: progress.files, filesDone: progress.filesDone,
            bytes: progress.bytes, bytesDone: progress.bytesDone, error: error)
    }

    private var pinBudgetName: String {
        options.pinBudget.map { "pin_size=\($0)" } ?? "the disk's free space less cache_min_free; see pin_size"
    }

    /// The `user.box.pinned` value: the pin root's path below the mount (`/` for the root), nil when no pin
    /// covers the item.
    func pinnedAttribute(ofItem id: String) -> String? {
        pinner?.coveringPin(ofItem: id).map { Pinner.shown($0.path) }
    }

    /// The pinned line of `boxfs status`.
    func describePins(_ report: inout StatusReport) {
        guard let pinner else { return }
        let (count, fetching, error) = pinner.state.withLock { ($0.set.pins.count, $0.fetching, $0.lastError) }
        guard count > 0 else { return }
        let progress = pinner.progress(of: nil)
        report.pinned = StatusReport.Pinned(
            pins: count, files: progress.files, filesDone: progress.filesDone, bytes: progress.bytes,
            bytesDone: progress.bytesDone, fetching: fetching, error: error)
    }

    /// "3 B", "999 B", "1.5 kB", "80.0 MB", "2.1 GB" (decimal units, one decimal place above bytes): sizes in the
    /// core's messages and in `boxfs status`.
    public static func byteText(_ count: Int64) -> String {
        if count < 1000 { return "\(count) B" }
        var value = Double(count)
        for unit in ["kB", "MB", "GB", "TB"] {
            value /= 1000
            if value < 999.95 || unit == "TB" { return String(format: "%.1f", value) + " " + unit }
        }
        return "\(count) B"
    }
}
