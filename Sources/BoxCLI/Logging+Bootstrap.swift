import Logging

enum Logging {
    /// Sets up swift-log once: stderr, info level (debug with `-o debug`).
    static func bootstrapped(debug: Bool) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = debug ? .debug : .info
            return handler
        }
        return Logger(label: "boxfs")
    }
}
