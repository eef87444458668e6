import Foundation

/// A small seeded generator (SplitMix64): the same seed gives the same steps on every machine.
struct SeededRandom: Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }
    mutating func chance(_ share: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < share }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Random but sensible steps: each thread's next operation is chosen from what its model holds now (mostly
/// operations that succeed, some that must fail with a known errno), so runs go deep instead of erring early.
struct OpGenerator {
    struct Mix: Sendable {
        var threads = 3
        var steps = 80
        /// Share of steps that unmount and mount again, and that kill the daemon and mount again.
        var remountRate = 0.02
        var killRate = 0.02
        var slots = 2
        /// Offline periods: the network cut at random steps and restored later, and changes made on Box
        /// elsewhere (while cut too). Off, the generator draws exactly what it drew before they existed, so
        /// earlier seeds replay.
        var offline = false
        /// Share of steps that cut the network (while it is up), restore it (while it is cut), and change Box
        /// elsewhere.
        var cutRate = 0.03
        var restoreRate = 0.1
        var remoteRate = 0.04
    }

    static let fileNames = ["f0", "f1", "f2", "f3"]
    static let folderNames = ["d0", "d1"]

    static func generate(seed: UInt64, mix: Mix) -> [Step] {
        var random = SeededRandom(seed: seed)
        var models = [FileModel](repeating: FileModel(), count: mix.threads)
        var steps: [Step] = []
        var cut = false
        while steps.count < mix.steps {
            if random.chance(mix.remountRate + mix.killRate) {
                // A remount needs Box (its start asks for the root): the network comes back first.
                if cut { steps.append(.restore); cut = false }
                for thread in models.indices {
                    for slot in models[thread].openSlots {
                        steps.append(.op(thread: thread, .close(slot: slot)))
                        _ = models[thread].apply(.close(slot: slot))
                    }
                }
                steps.append(random.chance(mix.remountRate / (mix.remountRate + mix.killRate)) ? .remount : .killAndRemount)
                continue
            }
            if mix.offline {
                if random.chance(mix.remoteRate) {
                    let thread = random.below(mix.threads)
                    steps.append(.remote(thread: thread, remoteOp(&random, models[thread])))
                    continue
                }
                if random.chance(cut ? mix.restoreRate : mix.cutRate) {
                    // Handles are closed around a cut and a restore, as around a remount.
                    for thread in models.indices { models[thread].closeAll() }
                    // Half the time a file gets a new version elsewhere just before the cut: the mount knows of it
                    // but has none of its bytes, so reading it while cut must fail at once.
                    if !cut, random.chance(0.5) {
                        let thread = random.below(mix.threads)
                        let files = models[thread].entries.filter { $0.value != .dir }.keys.sorted()
                        if !files.isEmpty { steps.append(.remote(thread: thread, .write(random.pick(files), fill(&random)))) }
                    }
                    steps.append(cut ? .restore : .cut)
                    cut.toggle()
                    continue
                }
            }
            let thread = random.below(mix.threads)
            let op = nextOp(&random, models[thread], slots: mix.slots)
            _ = models[thread].apply(op)
            steps.append(.op(thread: thread, op))
        }
        if cut { steps.append(.restore) }
        return steps
    }

    /// Someone else's change: mostly a new version of a file the thread has, else a new file or a deletion.
    static func remoteOp(_ random: inout SeededRandom, _ model: FileModel) -> RemoteOp {
        let folders = model.entries.filter { $0.value == .dir }.keys.sorted()
        let files = model.entries.filter { if case .file = $0.value { true } else { false } }.keys.sorted()
        let path = !files.isEmpty && random.chance(0.7) ? random.pick(files)
            : FileModel.join(random.pick(folders), random.pick(fileNames))
        return random.chance(0.75) ? .write(path, fill(&random)) : .delete(path)
    }

    static func fill(_ random: inout SeededRandom) -> Fill {
        let length = random.chance(0.06) ? 20_000 + random.below(160_000) : 1 + random.below(4096)
        return Fill(length: length, seed: UInt32(truncatingIfNeeded: random.next()))
    }

    static func nextOp(_ random: inout SeededRandom, _ model: FileModel, slots: Int) -> Op {
        let entries = model.entries
        let folders = entries.filter { $0.value == .dir }.keys.sorted()
        let files = entries.filter { if case .file = $0.value { true } else { false } }.keys.sorted()
        let open = model.openSlots
        let writable = open.filter { model.handle($0)?.writable == true && model.handle($0)?.file != FileModel.folderHandle }
        let free = (0..<slots).filter { model.handle($0) == nil }

        /// A file path: mostly an existing file, else a new name in an existing folder (rarely a case twin).
        func filePath() -> String {
            if !files.isEmpty && random.chance(0.7) { return random.pick(files) }
            let name = random.chance(0.05) ? "F0" : random.pick(fileNames)
            return FileModel.join(random.pick(folders), name)
        }
        func folderPath() -> String {
            let existing = folders.filter { !$0.isEmpty }
            if !existing.isEmpty && random.chance(0.6) { return random.pick(existing) }
            let parent = random.pick(folders.filter { $0.split(separator: "/").count < 2 })
            return FileModel.join(parent, random.chance(0.05) ? "D0" : random.pick(folderNames))
        }
        func size(of path: String) -> Int {
            if case .file(let id) = entries[path] { return model.contents[id]?.count ?? 0 }
            return 0
        }
        func handleSize(_ slot: Int) -> Int { model.handle(slot).flatMap { model.contents[$0.file]?.count } ?? 0 }

        while true {
            switch random.below(100) {
            case 0..<12: return .writeFile(filePath(), fill(&random))
            case 12..<24: return .append(filePath(), fill(&random))
            case 24..<32 where !free.isEmpty:
                return .open(slot: random.pick(free), filePath(), writable: random.chance(0.75), create: random.chance(0.5))
            case 32..<44 where !writable.isEmpty:
                let slot = random.pick(writable)
                return .pwrite(slot: slot, offset: random.below(handleSize(slot) + 2000), fill(&random))
            case 44..<51 where !open.isEmpty:
                let slot = random.pick(open)
                return .pread(slot: slot, offset: random.below(handleSize(slot) + 100), length: 1 + random.below(70_000))
            case 51..<54 where !writable.isEmpty:
                let slot = random.pick(writable)
                return .ftruncate(slot: slot, size: random.below(handleSize(slot) + 5000))
            case 54..<58 where !open.isEmpty: return .fsync(slot: random.pick(open))
            case 58..<65 where !open.isEmpty: return .close(slot: random.pick(open))
            case 65..<69:
                let path = filePath()
                return .truncate(path, size: random.below(size(of: path) + 5000))
            case 69..<77: return .read(filePath())
            case 77..<82: return .stat(random.chance(0.8) ? filePath() : folderPath())
            case 82..<88: return .list(random.pick(folders))
            case 88..<93:
                if random.chance(0.8) || folders.count < 2 { return .rename(filePath(), filePath()) }
                let from = random.pick(folders.filter { !$0.isEmpty })
                let target = FileModel.join(random.pick(folders.filter { !($0 + "/").hasPrefix(from + "/") }),
                                            random.pick(folderNames))
                return .rename(from, target)
            case 93..<96: return random.chance(0.9) ? .unlink(filePath()) : .unlink(folderPath())
            case 96..<98: return .mkdir(folderPath())
            case 98..<100: return .rmdir(folderPath())
            default: continue
            }
        }
    }
}
