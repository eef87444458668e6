import Foundation
import SystemCalls

/// Starts the mount daemon as a new process (this binary with `-f`) and waits for its readiness line.
enum BackgroundLauncher {
    struct LaunchError: Error, CustomStringConvertible {
        let description: String
    }

    /// Returns once the daemon says the mount is ready; throws with the daemon's own message otherwise.
    static func launch(arguments: [String], environment extra: [String: String] = [:], logFile: String?) throws {
        let (readEnd, writeEnd): (Int32, Int32)
        do throws(SystemCallError) { (readEnd, writeEnd) = try Syscall.pipe() } catch {
            throw LaunchError(description: "cannot create a pipe: \(error.reason)")
        }
        let childFD: Int32 = 3

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The daemon must not hold the caller's terminal or pipes open: stdin/stdout/stderr go to
        // the log file (or /dev/null); errors before readiness travel over the pipe instead.
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logFile ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, childFD)
        // Nothing else the caller had open may leak into a long-lived daemon: a caller waiting for
        // its pipes to close (a shell's `$(...)`, a test harness) would wait until the unmount.
        // (glibc's posix_spawn_file_actions_addclosefrom_np is not imported into Swift, so each open
        // descriptor is named; closing one that is already gone is harmless.)
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > childFD {  // the pipe's own ends included
            posix_spawn_file_actions_addclose(&actions, fd)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)  // POSIX_SPAWN_SETSID (glibc), not imported into Swift

        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = ProcessInfo.processInfo.environment
        environment[ReadinessPipe.environmentKey] = String(childFD)
        environment.merge(extra) { _, new in new }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        Syscall.close(writeEnd)
        defer { Syscall.close(readEnd) }
        guard spawned == 0 else {
            throw LaunchError(description: "cannot start the mount daemon: \(String(cString: strerror(spawned)))")
        }
        var line = readLine(from: readEnd)
        while let progress = line, progress.hasPrefix("wait: ") {
            FileHandle.standardError.write(Data("\(BoxfsEntry.calledName): \(progress.dropFirst(6))\n".utf8))
            line = readLine(from: readEnd)
        }
        if line == "ok" { return }
        if let line, line.hasPrefix("error: ") { throw LaunchError(description: String(line.dropFirst(7))) }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        throw LaunchError(description: "the mount daemon exited before the mount was ready (status \(status))")
    }

    private static func readLine(from fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: [UInt8] = [0]
        while true {
            let count = (try? Syscall.readSome(fd, into: &byte, path: "the readiness pipe")) ?? 0
            guard count == 1, byte[0] != UInt8(ascii: "\n") else { break }
            bytes.append(byte[0])
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
