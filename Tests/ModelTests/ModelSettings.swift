import Foundation

/// How the model tier runs, from the environment (scripts/soak sets these; without them the bounded run of
/// scripts/test): `BOXFS_MODEL_SEEDS` (comma list) or `BOXFS_MODEL_SEED`, `BOXFS_MODEL_MINUTES` (soak: new seeds
/// until the time is up), `BOXFS_MODEL_FAULTS` (`off`, `on`, `all` (with offline periods), `offline` (offline periods
/// alone), or a JSON array of boxsim fault rules), `BOXFS_MODEL_OFFLINE` (`on`/`off`: offline periods whatever the faults),
/// `BOXFS_MODEL_STEPS`, `BOXFS_MODEL_THREADS`, `BOXFS_MODEL_LISTERS`, `BOXFS_MODEL_REMOUNTS` (`on`/`off`),
/// `BOXFS_MODEL_SHRINK_SECONDS`.
struct ModelSettings: Sendable {
    var seeds: [UInt64] = [1, 2, 3]
    var minutes: Double?
    var mix = OpGenerator.Mix()
    var listers = 1
    /// Fault rules (JSON objects, docs/BOXSIM.md "Fault rule fields") added once the threads' folders exist.
    var faultRules: [String] = []
    var faultName = "on"
    /// More `-o` options for every mount of the run (`BOXFS_MODEL_MOUNT_OPTIONS`, comma-separated).
    var mountOptions: [String] = []
    var shrinkSeconds: Double = 240
    /// Longest wait for uploads to settle and Box to equal the model.
    var settleSeconds: Double = 90
    /// Longest a stretch of operations may take before it counts as a hang.
    var segmentSeconds: Double = 120

    /// The bounded run of scripts/test (no `BOXFS_MODEL_MINUTES`): a few seeds with server faults, remounts and
    /// kills on, as a soak runs unless told otherwise.
    static let boundedSeeds: [UInt64] = [1, 2, 3, 4]
    static let boundedSteps = 60
    static let boundedFaults = "on"
    static let boundedRemounts = "on"

    /// 5xx and 429 (with Retry-After) at random, on every Box request.
    static let serverErrors = [
        #"{"error_status": 500, "error_rate": 0.03}"#,
        #"{"error_status": 503, "error_rate": 0.02, "retry_after": 1}"#,
        #"{"error_status": 429, "error_rate": 0.02, "retry_after": 1}"#,
    ]
    /// Also a few cut connections: answers to uploads and downloads lost part-way.
    static let cuts = [
        #"{"path_prefix": "/api/2.0/files/content", "method": "POST", "cut_after_bytes": 100, "count": 2}"#,
        #"{"path_prefix": "/dl/", "cut_after_bytes": 1000, "count": 3}"#,
    ]

    /// Whether faults `name` bring offline periods: the network between the mount and boxsim cut at random steps
    /// and restored later, and changes made on Box elsewhere meanwhile (`offline`, and with the rest, `all`).
    static func offlinePeriods(named name: String) -> Bool { ["all", "offline"].contains(name) }

    static func faults(named name: String) throws -> [String] {
        switch name {
        case "off", "offline": return []
        case "on": return serverErrors
        case "all": return serverErrors + cuts
        default:
            guard let rules = try? JSONSerialization.jsonObject(with: Data(name.utf8)) as? [[String: Any]] else {
                throw SettingsError(description: "BOXFS_MODEL_FAULTS must be off, on, all, offline or a JSON array of fault rules")
            }
            return try rules.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        }
    }

    struct SettingsError: Error, CustomStringConvertible { let description: String }

    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ModelSettings {
        var settings = ModelSettings()
        func number(_ key: String) throws -> Double? {
            guard let text = environment[key], !text.isEmpty else { return nil }
            guard let value = Double(text), value >= 0 else { throw SettingsError(description: "\(key)=\(text) is not a number") }
            return value
        }
        settings.minutes = try number("BOXFS_MODEL_MINUTES")
        if settings.minutes == nil {
            settings.seeds = boundedSeeds
            settings.mix.steps = boundedSteps
        }
        if let seeds = environment["BOXFS_MODEL_SEEDS"], !seeds.isEmpty {
            settings.seeds = try seeds.split(separator: ",").map {
                guard let seed = UInt64($0.trimmingCharacters(in: .whitespaces)) else {
                    throw SettingsError(description: "BOXFS_MODEL_SEEDS=\(seeds) is not a comma list of seeds")
                }
                return seed
            }
        }
        if let seed = environment["BOXFS_MODEL_SEED"], !seed.isEmpty {
            guard let value = UInt64(seed) else { throw SettingsError(description: "BOXFS_MODEL_SEED=\(seed) is not a seed") }
            settings.seeds = [value]
        }
        if let steps = try number("BOXFS_MODEL_STEPS") { settings.mix.steps = Int(steps) }
        if let threads = try number("BOXFS_MODEL_THREADS") { settings.mix.threads = max(1, Int(threads)) }
        if let listers = try number("BOXFS_MODEL_LISTERS") { settings.listers = Int(listers) }
        if let seconds = try number("BOXFS_MODEL_SHRINK_SECONDS") { settings.shrinkSeconds = seconds }
        let soak = settings.minutes != nil
        switch environment["BOXFS_MODEL_REMOUNTS"] ?? (soak ? "on" : boundedRemounts) {
        case "on", "": break
        case "off": settings.mix.remountRate = 0; settings.mix.killRate = 0
        case let other: throw SettingsError(description: "BOXFS_MODEL_REMOUNTS=\(other) must be on or off")
        }
        settings.faultName = environment["BOXFS_MODEL_FAULTS"].flatMap { $0.isEmpty ? nil : $0 } ?? (soak ? "on" : boundedFaults)
        settings.faultRules = try faults(named: settings.faultName)
        settings.mix.offline = offlinePeriods(named: settings.faultName)
        switch environment["BOXFS_MODEL_OFFLINE"] ?? "" {
        case "": break
        case "on": settings.mix.offline = true
        case "off": settings.mix.offline = false
        case let other: throw SettingsError(description: "BOXFS_MODEL_OFFLINE=\(other) must be on or off")
        }
        settings.mountOptions = (environment["BOXFS_MODEL_MOUNT_OPTIONS"] ?? "").split(separator: ",").map(String.init)
        return settings
    }

    /// The environment that runs `seed` again with these settings.
    func environment(seed: UInt64) -> String {
        "BOXFS_MODEL_SEED=\(seed) BOXFS_MODEL_FAULTS='\(faultName)' BOXFS_MODEL_STEPS=\(mix.steps) "
            + "BOXFS_MODEL_THREADS=\(mix.threads) BOXFS_MODEL_LISTERS=\(listers) "
            + "BOXFS_MODEL_REMOUNTS=\(mix.remountRate + mix.killRate > 0 ? "on" : "off")"
            + " BOXFS_MODEL_OFFLINE=\(mix.offline ? "on" : "off")"
            + (mountOptions.isEmpty ? "" : " BOXFS_MODEL_MOUNT_OPTIONS=\(mountOptions.joined(separator: ","))")
    }

    var summary: String {
        "\(mix.threads) threads, \(listers) listers, \(mix.steps) steps, faults \(faultName), "
            + "remounts \(mix.remountRate + mix.killRate > 0 ? "on" : "off"), offline periods \(mix.offline ? "on" : "off")"
    }
}
