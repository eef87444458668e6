import FakeBox
import Foundation
import XCTest

/// The core's reference-model tier: the same seeded step lists as `ReferenceModelTests`, run against the
/// filesystem core in-process over a fake Box (`CoreModelRun`), hundreds of seeds a minute instead of eight. A
/// divergence is shrunk and printed with the environment that replays it.
///
/// Settings (scripts/soak --in-process sets them): `BOXFS_CORE_MODEL_SEEDS` (comma list) or `BOXFS_CORE_MODEL_SEED`,
/// `BOXFS_CORE_MODEL_MINUTES` (new seeds until the time is up), `BOXFS_CORE_MODEL_FAULTS` (`off`, `on`),
/// `BOXFS_CORE_MODEL_STEPS`, `BOXFS_CORE_MODEL_THREADS`, `BOXFS_CORE_MODEL_CONCURRENT` (`off`: operations one after
/// another in step order, replayed exactly; `on`: each thread's at once; `mixed`, the default: odd seeds at once).
final class CoreModelTests: XCTestCase {
    struct Settings {
        var seeds: [UInt64] = Array(1...200)
        var minutes: Double?
        var mix = OpGenerator.Mix(threads: 3, steps: 60)
        var faultName = "on"
        var concurrency = "mixed"
        var shrinkSeconds = 60.0

        var faults: FakeBoxFaults { faultName == "off" ? .off : .on }

        func concurrent(seed: UInt64) -> Bool {
            concurrency == "on" || (concurrency == "mixed" && seed % 2 == 1)
        }

        func environment(seed: UInt64) -> String {
            "BOXFS_CORE_MODEL_SEED=\(seed) BOXFS_CORE_MODEL_FAULTS=\(faultName) BOXFS_CORE_MODEL_STEPS=\(mix.steps) "
                + "BOXFS_CORE_MODEL_THREADS=\(mix.threads) BOXFS_CORE_MODEL_CONCURRENT=\(concurrency)"
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
            if let list = value("BOXFS_CORE_MODEL_SEEDS") ?? value("BOXFS_CORE_MODEL_SEED") {
                settings.seeds = try list.split(separator: ",").map {
                    guard let seed = UInt64($0.trimmingCharacters(in: .whitespaces)) else {
                        throw ModelRunError(description: "BOXFS_CORE_MODEL_SEEDS=\(list) is not a comma list of seeds")
                    }
                    return seed
                }
            }
            if let steps = try number("BOXFS_CORE_MODEL_STEPS") { settings.mix.steps = Int(steps) }
            if let threads = try number("BOXFS_CORE_MODEL_THREADS") { settings.mix.threads = max(1, Int(threads)) }
            if let faults = value("BOXFS_CORE_MODEL_FAULTS") {
                guard ["on", "off"].contains(faults) else { throw ModelRunError(description: "BOXFS_CORE_MODEL_FAULTS must be on or off") }
                settings.faultName = faults
            }
            if let concurrency = value("BOXFS_CORE_MODEL_CONCURRENT") {
                guard ["on", "off", "mixed"].contains(concurrency) else {
                    throw ModelRunError(description: "BOXFS_CORE_MODEL_CONCURRENT must be on, off or mixed")
                }
                settings.concurrency = concurrency
            }
            return settings
        }
    }

    func run(_ steps: [Step], seed: UInt64, settings: Settings) throws -> (Divergence?, Int) {
        try blocking {
            let run = CoreModelRun(steps: steps, threads: settings.mix.threads, faults: settings.faults,
                                   concurrent: settings.concurrent(seed: seed), seed: seed)
            let divergence = try await run.run()
            return (divergence, run.executed)
        }
    }

    /// Bounded in scripts/test (200 seeds); `BOXFS_CORE_MODEL_MINUTES` makes it a soak.
    func testRandomSequencesKeepToTheModelInProcess() throws {
        let settings = try Settings.fromEnvironment()
        let started = Date()
        let pinned = ProcessInfo.processInfo.environment["BOXFS_CORE_MODEL_SEED"] != nil
            || ProcessInfo.processInfo.environment["BOXFS_CORE_MODEL_SEEDS"] != nil
        let first = settings.minutes != nil && !pinned ? UInt64.random(in: 1...999_999_999) : settings.seeds[0]
        print("core model: \(settings.mix.threads) threads, \(settings.mix.steps) steps, faults \(settings.faultName), "
              + "concurrency \(settings.concurrency)")
        var runs = 0, operations = 0
        var failures: [String] = []
        var next = 0
        while true {
            if let minutes = settings.minutes {
                if Date().timeIntervalSince(started) > minutes * 60 { break }
            } else if next >= settings.seeds.count { break }
            let seed = pinned || settings.minutes == nil ? settings.seeds[next % settings.seeds.count] : first &+ UInt64(next)
            next += 1
            let steps = OpGenerator.generate(seed: seed, mix: settings.mix)
            let (divergence, executed) = try run(steps, seed: seed, settings: settings)
            runs += 1
            operations += executed
            guard let divergence else { continue }
            failures.append(report(seed: seed, steps: steps, divergence: divergence, settings: settings))
            print(failures.last!)
            if failures.count >= 3 { break }
        }
        let seconds = Date().timeIntervalSince(started)
        print("core model: \(runs) seeds run, \(operations) operations executed, \(failures.count) divergences, "
              + "\(Int(seconds)) s (\(Int(Double(runs) / max(seconds, 0.001) * 60)) seeds a minute)")
        XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n\n"))
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
