import ArgumentParser
import BoxFS
import Foundation

/// `boxfs retry [MOUNTPOINT]`: tries every parked or backing-off upload now instead of at its next
/// time (after a new token was put in the token file, or the network came back). Talks to the
/// mount through its unlisted control file `.boxfs\retry` (see `StatusFile`).
struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Try waiting uploads of boxfs mounts again now.")

    @Argument(help: "A boxfs mountpoint (default: every boxfs mount).") var mountpoint: String?

    func run() async throws {
        let mountpoints = try mountpoint.map { [try StatusCommand.resolve($0)] } ?? StatusCommand.boxfsMounts()
        if mountpoints.isEmpty { print("no boxfs mounts") }
        var failed = false
        for path in mountpoints {
            do {
                let data = try StatusFile.read(mountpoint: path, file: StatusFile.retryName)
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                let count = object?["retried"] as? Int ?? 0
                print("\(path): \(count == 0 ? "no upload is waiting" : "trying \(count) upload(s) again now")")
            } catch {
                FileHandle.standardError.write(Data("boxfs retry: \(path): \(error)\n".utf8))
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
