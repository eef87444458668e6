import Foundation
import Synchronization

/// Changes the mount makes on Box on its own behalf once an upload lands (removing an upload that landed
/// under a name since replaced, renaming one that landed under a name since changed), by the folders they
/// touch. They run in tasks of their own; a namespace operation in one of those folders waits for them
/// first, so it never meets a name the mount is about to free (a rename there would get Box's 409 and
/// fail with EEXIST although the mount shows the name free).
final class BoxCleanups: Sendable {
    private struct Running { let folders: Set<String>; let task: Task<Void, Never> }
    private let running = OwnLock<[UInt64: Running]>("the cleanups' tasks", [:])
    private let counter = Atomic<UInt64>(0)

    /// Starts `work`, known to touch `folders` until it ends.
    func start(in folders: Set<String>, _ work: @escaping @Sendable () async -> Void) {
        let id = counter.add(1, ordering: .relaxed).newValue
        running.withLock { running in
            // Created under the lock: the task's own removal cannot come before its insertion.
            running[id] = Running(folders: folders, task: Task { [weak self] in
                await work()
                _ = self?.running.withLock { $0.removeValue(forKey: id) }
            })
        }
    }

    /// Waits for every cleanup touching any of `folders` (at once when there is none).
    func settle(_ folders: Set<String>) async {
        let tasks = running.withLock { $0.values.filter { !$0.folders.isDisjoint(with: folders) }.map(\.task) }
        for task in tasks { await task.value }
    }
}
