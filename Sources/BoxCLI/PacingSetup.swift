import BoxAPI
import Foundation
import Logging

/// The mount's pace under Box's limits (`calls_per_minute=`, `uploads_per_minute=`, ...): one bucket per
/// account, in a file the account's other mounts on this machine share (`PacingStateFile`).
enum PacingSetup {
    static func paced(_ client: BoxClient, options: MountOptions, endpoint: String, userID: String, logger: Logger)
        async -> BoxClient
    {
        guard !options.pacingLimits.isEmpty else { return client }
        let path = PacingStateFile.path(
            endpoint: endpoint, userID: userID, environment: ProcessInfo.processInfo.environment)
        let file = PacingStateFile(path: path)
        if file == nil {
            logger.warning("could not open \(path): this mount paces its calls alone, not with the account's other mounts")
        }
        let pacer = Pacer(limits: options.pacingLimits, file: file, logger: logger)
        await pacer.charge([.callsPerMinute])  // `GET /2.0/users/me`, which named the account
        return client.withPacer(pacer)
    }
}
