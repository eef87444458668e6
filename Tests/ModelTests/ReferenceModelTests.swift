import BoxTestSupport
import Foundation
import XCTest

/// The reference-model tier: seeded random sequences of file and folder operations from several threads at once
/// (each in its own folder, listers walking everything), through real system calls on a real mount of boxsim
/// with faults injected, checked against an in-memory model after every operation, the whole mounted tree after
/// every stretch, and Box's own tree once uploads settle. A divergence is shrunk to the shortest sequence that
/// still fails and printed as a script with its seed. See docs/TESTING.md.
final class ReferenceModelTests: XCTestCase {
    /// Bounded by default (a few seeds, part of scripts/test); `BOXFS_MODEL_MINUTES` makes it a soak.
    func testRandomSequencesKeepToTheModel() throws {
        let settings = try ModelSettings.fromEnvironment()
        let started = Date()
        var seeds = settings.seeds
        if settings.minutes != nil, ProcessInfo.processInfo.environment["BOXFS_MODEL_SEED"] == nil,
           ProcessInfo.processInfo.environment["BOXFS_MODEL_SEEDS"] == nil {
            seeds = [UInt64.random(in: 1...999_999)]
        }
        print("model: \(settings.summary)")
        var runs = 0, operations = 0, cuts = 0, elsewhere = 0
        var failures: [String] = []
        var next = 0
        while true {
            if let minutes = settings.minutes {
                if Date().timeIntervalSince(started) > minutes * 60 { break }
            } else if next >= seeds.count { break }
            let seed = next < seeds.count ? seeds[next] : seeds[seeds.count - 1] &+ UInt64(next - seeds.count + 1)
            next += 1
            let steps = OpGenerator.generate(seed: seed, mix: settings.mix)
            let run = ModelRun(steps: steps, settings: settings)
            let divergence = try run.run()
            runs += 1
            operations += run.executed
            let counts = offlineCounts(steps)
            cuts += counts.cuts
            elsewhere += counts.elsewhere
            print("model: seed \(seed): \(run.executed) operations, \(counts.cuts) cuts, \(counts.elsewhere) changes elsewhere, "
                  + "\(divergence == nil ? "kept to the model" : "DIVERGED")")
            guard let divergence else { continue }
            failures.append(report(seed: seed, steps: steps, divergence: divergence, settings: settings))
            print(failures.last!)
        }
        print("model: \(runs) seeds run, \(operations) operations executed, \(cuts) network cuts, \(elsewhere) changes elsewhere, "
              + "\(failures.count) divergences, "
              + "\(Int(Date().timeIntervalSince(started))) s")
        XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n\n"))
    }

    /// Shrinks the failing steps and words the divergence with everything needed to reproduce it.
    func report(seed: UInt64, steps: [Step], divergence: Divergence, settings: ModelSettings) -> String {
        var shrinker = Shrinker(deadline: Date().addingTimeInterval(settings.shrinkSeconds)) { candidate in
            (try? ModelRun(steps: candidate, settings: settings).run()) ?? nil
        }
        let shrunk = shrinker.shrink(steps, failing: divergence)
        return """
            DIVERGENCE with seed \(seed) (\(settings.summary)); reproduce with
              \(settings.environment(seed: seed)) scripts/test --filter ModelTests
            \(divergence)
            shrunk from \(steps.count) to \(shrunk.steps.count) steps in \(shrinker.tries) runs; it fails with:
            \(shrunk.divergence)
            \(script(shrunk.steps))
            """
    }
}
