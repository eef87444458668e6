import BoxAPI

extension StatusReport {
    /// Calls waiting for one of Box's limits: "12 calls waiting for Box's rate limit (1,000 a minute)".
    public struct PacingWait: Codable, Sendable, Equatable {
        /// `calls_per_minute`, `uploads_per_minute`, `searches_per_second`, `searches_per_minute`.
        public var limit: String
        public var waiting: Int
        /// The limit's number, as the mount paces it.
        public var perWindow: Int

        /// `pacing: 12 calls waiting for Box's rate limit (1,000 a minute)`.
        public var line: String {
            let paced = PacedLimit(rawValue: limit)
            let noun = paced?.noun ?? "calls"
            return "pacing: \(waiting) \(noun) waiting for Box's rate limit (\(Self.grouped(perWindow)) \(paced?.per ?? "a minute"))"
        }

        static func grouped(_ number: Int) -> String {
            let digits = String(number)
            var out = ""
            for (index, digit) in digits.enumerated() {
                if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
                out.append(digit)
            }
            return out
        }
    }
}

extension FileSystem {
    /// What the pace holds back now (nothing when the client is not paced or no call waits).
    func describePacing(_ report: inout StatusReport) {
        guard let pacer = client.pacer else { return }
        let waits = pacer.waiting.sorted { $0.key.rawValue < $1.key.rawValue }.map { limit, count in
            StatusReport.PacingWait(limit: limit.rawValue, waiting: count, perWindow: pacer.limits[limit])
        }
        report.pacing = waits.isEmpty ? nil : waits
    }
}
