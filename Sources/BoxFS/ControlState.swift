import BoxAPI
import Synchronization

/// What the mount holds for its control directory (`ControlDirectory`): the nodes the kernel knows, the views
/// fetched from Box and when, and one fetch per view at a time.
///
/// Lock order: `table` and `views` are each taken alone (never one inside the other, nor with a lock of
/// `FileSystem` held).
final class ControlState: Sendable {
    /// The control directory's name at the mount root.
    let name: String
    let table = OwnLock("the control nodes", ControlTable())
    let views = OwnLock("the control views", ControlViews())
    let versionFetches = SingleFlight<String, NamedVersions>()
    /// Keyed by the view and the generation it was asked in: a caller after a change does not join a fetch
    /// that began before it.
    let treeFetches = SingleFlight<GenerationKey, ViewTree>()
    /// Moves on whenever what the trash or a search shows may have changed (`trashChanged`, `boxfs refresh`):
    /// a fetch that began before stores nothing.
    let generation = Atomic<UInt64>(0)

    struct GenerationKey: Hashable, Sendable {
        let view: ViewKey
        let generation: UInt64
    }
    /// Whether the log has said that a Box item hides the control directory.
    let shadowReported = OwnLock("the shadowed control name report", false)

    init(name: String) {
        self.name = name
    }
}

/// A file's earlier versions with their names in `versions/PATH/`, oldest first.
struct NamedVersions: Sendable {
    var entries: [(name: String, version: BoxFileVersion)]

    func version(named name: String) -> BoxFileVersion? { entries.first { $0.name == name }?.version }
}

/// The views as last fetched from Box.
struct ControlViews {
    /// By file id: the versions, the file's current version when they were fetched, and when.
    var versions: [String: (current: String, named: NamedVersions, at: ContinuousClock.Instant)] = [:]
    /// The trash and each search's results, and when they were fetched.
    var trees: [ViewKey: (tree: ViewTree, at: ContinuousClock.Instant)] = [:]

    func freshVersions(of fileID: String, current: String, now: ContinuousClock.Instant) -> NamedVersions? {
        guard let cached = versions[fileID], cached.current == current,
              now - cached.at < ControlDirectory.viewTTL else { return nil }
        return cached.named
    }

    func freshTree(_ key: ViewKey, now: ContinuousClock.Instant) -> ViewTree? {
        guard let cached = trees[key], now - cached.at < ControlDirectory.viewTTL else { return nil }
        return cached.tree
    }

    /// Keeps a file's versions; version lists past their TTL go (one entry per file ever visited would grow).
    mutating func store(_ named: NamedVersions, of fileID: String, current: String, at now: ContinuousClock.Instant) {
        versions = versions.filter { now - $0.value.at < ControlDirectory.viewTTL }
        versions[fileID] = (current, named, now)
    }

    /// Keeps `tree`; the oldest searches go beyond `maxCachedSearches`.
    mutating func store(_ tree: ViewTree, for key: ViewKey, at now: ContinuousClock.Instant) {
        trees[key] = (tree, now)
        let searches = trees.filter { if case .search = $0.key { true } else { false } }
        guard searches.count > ControlDirectory.maxCachedSearches else { return }
        for (old, _) in searches.sorted(by: { $0.value.at < $1.value.at }).prefix(searches.count - ControlDirectory.maxCachedSearches) {
            trees[old] = nil
        }
    }
}
