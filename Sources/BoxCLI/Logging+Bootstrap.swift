import Foundation
import SystemCalls
import Logging

enum Logging {
    /// Sets up swift-log once, info level (debug with `-o debug`): to stderr, or to syslog when
    /// stderr goes nowhere (a background mount without `log_file`), so that what a daemon has to
    /// say — uploads left pending at unmount, conflicts, failures — reaches the system journal.
    static func bootstrapped(debug: Bool) -> Logger {
        bootstrappedWithDestination(debug: debug).logger
    }

    /// As `bootstrapped`, also saying where the log goes: `syslog`, a file's path (a background
    /// daemon's stderr is its log file), or `stderr`.
    static func bootstrappedWithDestination(debug: Bool) -> (logger: Logger, destination: String) {
        let toSyslog = stderrIsDevNull()
        let destination = toSyslog ? "syslog (journalctl -t boxfs)" : stderrFile() ?? "stderr"
        if toSyslog { openlog("boxfs", LOG_PID, LOG_DAEMON) }
        LoggingSystem.bootstrap { label in
            if toSyslog {
                var handler = SyslogLogHandler(label: label)
                handler.logLevel = debug ? .debug : .info
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = debug ? .debug : .info
            return handler
        }
        return (Logger(label: "boxfs"), destination)
    }

    /// Whether syslog(3) reaches anything: a socket at /dev/log (absent in most containers).
    static var syslogAvailable: Bool {
        guard let info = try? Syscall.status("/dev/log") else { return false }
        return info.st_mode & S_IFMT == S_IFSOCK
    }

    /// The path of the regular file stderr writes to, if it is one.
    private static func stderrFile() -> String? {
        guard let info = try? Syscall.status(2, path: "stderr"), info.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/2")
    }

    private static func stderrIsDevNull() -> Bool {
        guard let err = try? Syscall.status(2, path: "stderr"), let null = try? Syscall.status("/dev/null") else { return false }
        return err.st_mode & S_IFMT == S_IFCHR && err.st_rdev == null.st_rdev
    }
}

/// A swift-log handler that writes each message to syslog(3).
struct SyslogLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let details = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        let text = "[\(event.source)] \(event.message)\(details)"
        withVaList([text]) { vsyslog(Self.priority(event.level), "%s", $0) }
    }

    private static func priority(_ level: Logger.Level) -> Int32 {
        switch level {
        case .trace, .debug: LOG_DEBUG
        case .info: LOG_INFO
        case .notice: LOG_NOTICE
        case .warning: LOG_WARNING
        case .error: LOG_ERR
        case .critical: LOG_CRIT
        }
    }
}
