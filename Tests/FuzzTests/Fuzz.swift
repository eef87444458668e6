import Foundation
import Synchronization
import Testing

/// The suites of the fuzz tier run one at a time: the crash report names one input at a time.
@Suite(.serialized) enum FuzzTier {}

/// The fuzz tier: every parser that takes outside input gets generated and mutated input, seeded so a
/// failure can be replayed. See docs/TESTING.md, "Fuzzing".
///
/// - `BOXFS_FUZZ_SEED=N`: the base seed (default: a fixed one, so `scripts/test` is repeatable).
/// - `BOXFS_FUZZ_ITERATIONS=N`: inputs per parser (default: each target's own, a few thousand).
/// - `BOXFS_FUZZ_SECONDS=S`: run each parser for S seconds instead (`scripts/fuzz --minutes N`).
///
/// Iteration `i` runs on its own seed (the base seed itself for `i == 0`), and a failure prints
/// `BOXFS_FUZZ_SEED=<that seed> BOXFS_FUZZ_ITERATIONS=1`, which replays exactly that input. A trap
/// (the bug class this tier is for) kills the process before a test can report, so a signal handler
/// prints the same line first; an input that takes longer than a minute aborts with it too.
enum Fuzz {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Fails the current input unless `condition` holds.
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(Failure) {
        if !condition { throw Failure(description: message()) }
    }

    static let environment = ProcessInfo.processInfo.environment
    static let baseSeed: UInt64 = environment["BOXFS_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x5EED_B0F5
    static let iterationsOverride: Int? = environment["BOXFS_FUZZ_ITERATIONS"].flatMap { Int($0) }
    static let secondsBudget: Double? = environment["BOXFS_FUZZ_SECONDS"].flatMap { Double($0) }

    /// Runs `body` on `iterations` generated inputs (or for `BOXFS_FUZZ_SECONDS`), recording each failing
    /// input's replay seed; stops after a few failures.
    static func run(
        _ name: String, iterations: Int = 3000, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (inout FuzzRandom) throws -> Void
    ) {
        CrashReport.install()
        let count = iterationsOverride ?? iterations
        let deadline = secondsBudget.map { Date().addingTimeInterval($0) }
        var failures = 0
        var index = 0
        while deadline.map({ Date() < $0 }) ?? (index < count) {
            let seed = index == 0 ? baseSeed : FuzzRandom.mix(baseSeed &+ UInt64(index))
            CrashReport.begin(seed: seed)
            var random = FuzzRandom(seed: seed)
            do {
                try body(&random)
            } catch {
                failures += 1
                Issue.record(
                    "\(name): \(error)\n  replay: BOXFS_FUZZ_SEED=\(seed) BOXFS_FUZZ_ITERATIONS=1 swift test --filter FuzzTests",
                    sourceLocation: sourceLocation)
                if failures >= 5 { break }
            }
            index += 1
        }
        CrashReport.end()
    }
}

/// SplitMix64: small, fast, and the same sequence on every platform for a seed.
struct FuzzRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state &- 0x9E37_79B9_7F4A_7C15)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }
    mutating func pick<T>(_ choices: [T]) -> T { choices[int(0...choices.count - 1)] }
}

/// Prints the replay line when the process dies of a trap, a bad access or an abort during an input.
enum CrashReport {
    static let seed = Atomic<UInt64>(0)
    static let active = Atomic<Bool>(false)
    static let progress = Atomic<UInt64>(0)
    private static let installed = Mutex(false)

    static func begin(seed value: UInt64) {
        seed.store(value, ordering: .relaxed)
        progress.add(1, ordering: .relaxed)
        active.store(true, ordering: .relaxed)
    }

    static func end() { active.store(false, ordering: .relaxed) }

    static func install() {
        let first = installed.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        for signalNumber in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
            signal(signalNumber) { number in
                CrashReport.printReplayLine()
                signal(number, SIG_DFL)
                raise(number)
            }
        }
        // A hang is a failure too: no progress for a minute while an input runs.
        Thread.detachNewThread {
            var last = progress.load(ordering: .relaxed)
            while true {
                Thread.sleep(forTimeInterval: 60)
                let now = progress.load(ordering: .relaxed)
                if active.load(ordering: .relaxed) && now == last {
                    printReplayLine(prefix: "fuzz: an input ran for over a minute")
                    abort()
                }
                last = now
            }
        }
    }

    /// Async-signal-safe: formats into a stack buffer and write(2)s it.
    static func printReplayLine(prefix: StaticString = "fuzz: crashed") {
        guard active.load(ordering: .relaxed) else { return }
        write(2, prefix.utf8Start, prefix.utf8CodeUnitCount)
        let text: StaticString = "; replay: BOXFS_FUZZ_SEED="
        write(2, text.utf8Start, text.utf8CodeUnitCount)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var value = seed.load(ordering: .relaxed)
            var position = 23
            buffer[position] = UInt8(ascii: "\n")
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            write(2, buffer.baseAddress! + position, 24 - position)
        }
        let tail: StaticString = "  (with BOXFS_FUZZ_ITERATIONS=1 and the fuzz test that started last)\n"
        write(2, tail.utf8Start, tail.utf8CodeUnitCount)
    }
}
