import FakeBox
import Foundation
import XCTest

/// The core's reference-model tier: the same seeded step lists as `ReferenceModelTests`, run against the
/// filesystem core in-process over a fake Box (`CoreModelRun`), hundreds of seeds a minute instead of eight. A
/// divergence is shrunk and printed with the environment that replays it.
///
/// Settings (scripts/soak --in-process sets them): `BOXFS_CORE_MODEL_SEEDS` (comma list) or `BOXFS_CORE_MODEL_SEED`,
/// `BOXFS_CORE_MODEL_MINUTES` (new seeds until the time is up), `BOXFS_CORE_MODEL_FAULTS` (`off`; `on`: 5xx before a change and downloads cut part-way; `all`: also answers lost after Box made the change, and offline periods; `offline`: offline periods alone), `BOXFS_CORE_MODEL_OFFLINE` (`on`/`off`: offline periods, the network cut and restored and Box changed elsewhere, whatever the faults),
/// `BOXFS_CORE_MODEL_STEPS`, `BOXFS_CORE_MODEL_THREADS`, `BOXFS_CORE_MODEL_JOBS` (seeds run at once, 2), `BOXFS_CORE_MODEL_REMOUNTS` (`on`, `off`), `BOXFS_CORE_MODEL_CONCURRENT` (`quiet`: operations one after
/// another in step order, each once the uploads it started have landed, replayed exactly; `off`: one after another,
/// uploads racing the next; `on`: each thread's at once; `mixed`, a soak's default: odd seeds at once, even ones `off`; `quiet` is the bounded run's).
final class CoreModelTests: XCTestCase {
    struct Settings: Sendable {
        /// The bounded run of scripts/test: 400 seeds, quiet (exact replays), with faults and remounts.
        var seeds: [UInt64] = Array(1...400)
        var minutes: Double?
        var mix = OpGenerator.Mix(threads: 3, steps: 60)
        var faultName = "on"
        var concurrency = "mixed"
        var shrinkSeconds = 60.0
        var jobs = 2

        var faults: FakeBoxFaults {
            switch faultName {
            case "off", "offline": .off
            case "all": .all
            default: .on
            }
        }

        func concurrent(seed: UInt64) -> Bool {
            concurrency == "on" || (concurrency == "mixed" && seed % 2 == 1)
        }

        var quiet: Bool { concurrency == "quiet" }

        /// A run of `steps` with these settings.
        func run(_ steps: [Step], seed: UInt64) -> CoreModelRun {
            CoreModelRun(steps: steps, threads: mix.threads, faults: faults, concurrent: concurrent(seed: seed),
                         quiet: quiet, seed: seed)
        }

        func environment(seed: UInt64) -> String {
            "BOXFS_CORE_MODEL_SEED=\(seed) BOXFS_CORE_MODEL_FAULTS=\(faultName) BOXFS_CORE_MODEL_STEPS=\(mix.steps) "
                + "BOXFS_CORE_MODEL_THREADS=\(mix.threads) BOXFS_CORE_MODEL_CONCURRENT=\(concurrency) "
                + "BOXFS_CORE_MODEL_REMOUNTS=\(mix.remountRate + mix.killRate > 0 ? "on" : "off") "
                + "BOXFS_CORE_MODEL_OFFLINE=\(mix.offline ? "on" : "off")"
        }

        static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
            var settings = Settings()
            func value(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
            func number(_ key: String) throws -> Double? {
                guard let text = value(key) else { return nil }
                guard let number = Double(text), number >= 0 else { throw ModelRunError(description: "\(key)=\(text) is not a number") }
                return number
            }
            settings.minutes = try number("BOXFS_CORE_MODEL_MINUTES")
            // Without a time, the bounded run: operations replayed exactly. A soak mixes in the racing kinds.
            if settings.minutes == nil { settings.concurrency = "quiet" }
            if let list = value("BOXFS_CORE_MODEL_SEEDS") ?? value("BOXFS_CORE_MODEL_SEED") {
                settings.seeds = try list.split(separator: ",").map {
                    guard let seed = UInt64($0.trimmingCharacters(in: .whitespaces)) else {
                        throw ModelRunError(description: "BOXFS_CORE_MODEL_SEEDS=\(list) is not a comma list of seeds")
                    }
                    return seed
                }
            }
            if let jobs = try number("BOXFS_CORE_MODEL_JOBS") { settings.jobs = max(1, Int(jobs)) }
            if let steps = try number("BOXFS_CORE_MODEL_STEPS") { settings.mix.steps = Int(steps) }
            if let threads = try number("BOXFS_CORE_MODEL_THREADS") { settings.mix.threads = max(1, Int(threads)) }
            if let faults = value("BOXFS_CORE_MODEL_FAULTS") {
                guard ["on", "off", "all", "offline"].contains(faults) else {
                    throw ModelRunError(description: "BOXFS_CORE_MODEL_FAULTS must be off, on, all or offline")
                }
                settings.faultName = faults
            }
            // Offline periods come with `all` and `offline`; BOXFS_CORE_MODEL_OFFLINE=off leaves them out (seeds found
            // before they existed replay so), `on` adds them to any faults.
            settings.mix.offline = ["all", "offline"].contains(settings.faultName)
            switch value("BOXFS_CORE_MODEL_OFFLINE") {
            case nil: break
            case "on": settings.mix.offline = true
            case "off": settings.mix.offline = false
            case let other?: throw ModelRunError(description: "BOXFS_CORE_MODEL_OFFLINE=\(other) must be on or off")
            }
            switch value("BOXFS_CORE_MODEL_REMOUNTS") ?? "on" {
            case "on": break
            case "off": settings.mix.remountRate = 0; settings.mix.killRate = 0
            case let other: throw ModelRunError(description: "BOXFS_CORE_MODEL_REMOUNTS=\(other) must be on or off")
            }
            if let concurrency = value("BOXFS_CORE_MODEL_CONCURRENT") {
                guard ["on", "off", "mixed", "quiet"].contains(concurrency) else {
                    throw ModelRunError(description: "BOXFS_CORE_MODEL_CONCURRENT must be on, off, mixed or quiet")
                }
                settings.concurrency = concurrency
            }
            return settings
        }
    }

    /// Bounded in scripts/test (400 quiet seeds); `BOXFS_CORE_MODEL_MINUTES` makes it a soak. Seeds run `jobs` at a time
    /// (each run has its own fake Box and folders), so both cores are busy.
    func testRandomSequencesKeepToTheModelInProcess() throws {
        let settings = try Settings.fromEnvironment()
        let started = Date()
        let pinned = ProcessInfo.processInfo.environment["BOXFS_CORE_MODEL_SEED"] != nil
            || ProcessInfo.processInfo.environment["BOXFS_CORE_MODEL_SEEDS"] != nil
        let first = settings.minutes != nil && !pinned ? UInt64.random(in: 1...999_999_999) : settings.seeds[0]
        print("core model: \(settings.mix.threads) threads, \(settings.mix.steps) steps, faults \(settings.faultName), "
              + "offline periods \(settings.mix.offline ? "on" : "off"), "
              + "concurrency \(settings.concurrency), \(settings.jobs) at a time")
        let deadline = settings.minutes.map { started.addingTimeInterval($0 * 60) }
        let seeds: @Sendable (Int) -> UInt64? = { next in
            if let deadline {
                if Date() > deadline { return nil }
                return pinned ? settings.seeds[next % settings.seeds.count] : first &+ UInt64(next)
            }
            return next < settings.seeds.count ? settings.seeds[next] : nil
        }
        let outcome = try blocking { try await Self.runSeeds(seeds, settings: settings) }
        var failures: [String] = []
        for (seed, divergence) in outcome.divergences.prefix(3) {
            let steps = OpGenerator.generate(seed: seed, mix: settings.mix)
            failures.append(report(seed: seed, steps: steps, divergence: divergence, settings: settings))
            print(failures.last!)
        }
        let seconds = Date().timeIntervalSince(started)
        print("core model: \(outcome.runs) seeds run, \(outcome.operations) operations executed, "
              + "\(outcome.cuts) network cuts, \(outcome.elsewhere) changes elsewhere, "
              + "\(outcome.divergences.count) divergences (seeds \(outcome.divergences.map { String($0.0) }.joined(separator: ", "))), "
              + "\(Int(seconds)) s (\(Int(Double(outcome.runs) / max(outcome.seconds, 0.001) * 60)) seeds a minute before shrinking), "
              + "\(Self.openDescriptors) descriptors open")
        XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n\n"))
    }

    /// Descriptors the test process holds: runs that leaked their journal or cache would show here (and a long soak
    /// would fail with EMFILE).
    static var openDescriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

    struct Outcome: Sendable {
        var runs = 0, operations = 0, cuts = 0, elsewhere = 0
        var divergences: [(UInt64, Divergence)] = []
        var seconds = 0.0
    }

    /// Runs seeds from `seeds` (nil: no more) `settings.jobs` at a time; stops taking new ones after 3 divergences.
    static func runSeeds(_ seeds: @escaping @Sendable (Int) -> UInt64?, settings: Settings) async throws -> Outcome {
        let started = Date()
        var outcome = Outcome()
        try await withThrowingTaskGroup(of: (UInt64, Divergence?, Int, (cuts: Int, elsewhere: Int)).self) { group in
            var next = 0
            func addNext() -> Bool {
                guard let seed = seeds(next) else { return false }
                next += 1
                group.addTask {
                    let steps = OpGenerator.generate(seed: seed, mix: settings.mix)
                    let run = settings.run(steps, seed: seed)
                    let divergence = try await run.run()
                    return (seed, divergence, run.executed, offlineCounts(steps))
                }
                return true
            }
            for _ in 0..<settings.jobs where addNext() {}
            while let (seed, divergence, executed, counts) = try await group.next() {
                outcome.runs += 1
                outcome.operations += executed
                outcome.cuts += counts.cuts
                outcome.elsewhere += counts.elsewhere
                if let divergence {
                    outcome.divergences.append((seed, divergence))
                    print("core model: seed \(seed) DIVERGED: \(divergence.description.prefix(300))")
                }
                if outcome.divergences.count < 3 { _ = addNext() }
            }
        }
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }

    /// A quiet seed replays exactly: run twice, it sends the fake Box the same requests in the same order, whatever
    /// thread the uploader's work runs on (its own executor's) and however the pool schedules the rest.
    func testAQuietSeedSendsTheSameRequestsEachTime() throws {
        var quiet = Settings()
        quiet.concurrency = "quiet"
        let settings = quiet
        for seed: UInt64 in [3, 8, 21] {
            let steps = OpGenerator.generate(seed: seed, mix: settings.mix)
            let logs = try (0..<2).map { _ in
                try blocking { () async throws -> [String] in
                    let run = settings.run(steps, seed: seed)
                    let divergence = try await run.run()
                    XCTAssertNil(divergence, "seed \(seed)")
                    return run.box.requestLog
                }
            }
            let first = zip(logs[0], logs[1]).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(logs[0].count, logs[1].count)
            XCTAssertEqual(logs[0], logs[1], "seed \(seed): the runs part at request \(first) of \(logs[0].count)")
        }
    }

    func run(_ steps: [Step], seed: UInt64, settings: Settings) throws -> (Divergence?, Int) {
        try blocking {
            let run = settings.run(steps, seed: seed)
            let divergence = try await run.run()
            return (divergence, run.executed)
        }
    }

    func report(seed: UInt64, steps: [Step], divergence: Divergence, settings: Settings) -> String {
        var shrinker = Shrinker(deadline: Date().addingTimeInterval(settings.shrinkSeconds)) { candidate in
            (try? self.run(candidate, seed: seed, settings: settings).0) ?? nil
        }
        let shrunk = shrinker.shrink(steps, failing: divergence)
        return """
            CORE DIVERGENCE with seed \(seed); reproduce with
              \(settings.environment(seed: seed)) scripts/test --filter ModelTests.CoreModelTests
            \(divergence)
            shrunk from \(steps.count) to \(shrunk.steps.count) steps in \(shrinker.tries) runs; it fails with:
            \(shrunk.divergence)
            \(script(shrunk.steps))
            """
    }
}
