import CurlHTTP

/// How the uploader paces and splits its work.
public struct UploaderConfiguration: Sendable, Equatable {
    /// Seconds after the last close before a file is sent (`-o write_back_delay=`); a newer close
    /// restarts it, so rewrites in a burst cost one upload.
    public var writeBackDelay: Double
    /// Files of at least this many bytes go through a chunked upload session; smaller ones are
    /// sent in one multipart request. 20 MiB: Box refuses sessions below 20 MB (`file_size_too_small`)
    /// and direct uploads above 50 MB, and 20 MiB (20,971,520 bytes) clears the first limit however
    /// "MB" is read while keeping a failed direct upload cheap to resend whole.
    public var chunkedThreshold: Int64
    /// Parts of one session in flight at once (Box recommends 3–5).
    public var partsInFlight: Int
    /// Files uploading at once.
    public var maxConcurrentUploads: Int
    /// Retry pacing after transient failures (`RetryPolicy.untilDone`): `backoffBase × 2^n` seconds,
    /// at most `backoffMax`, less up to half of it at random.
    public var backoffBase: Double
    public var backoffMax: Double
    /// How long an entry that cannot proceed (account full, folder gone) waits before another try.
    public var parkInterval: Double
    /// Errors kept for `status`.
    public var recentErrorLimit: Int

    public init(
        writeBackDelay: Double = 2, chunkedThreshold: Int64 = 20 * 1024 * 1024, partsInFlight: Int = 4,
        maxConcurrentUploads: Int = 3, backoffBase: Double = 1, backoffMax: Double = 300, parkInterval: Double = 900,
        recentErrorLimit: Int = 50
    ) {
        self.writeBackDelay = writeBackDelay
        self.chunkedThreshold = chunkedThreshold
        self.partsInFlight = max(1, partsInFlight)
        self.maxConcurrentUploads = max(1, maxConcurrentUploads)
        self.backoffBase = backoffBase
        self.backoffMax = backoffMax
        self.parkInterval = parkInterval
        self.recentErrorLimit = recentErrorLimit
    }

    var lifecycleSettings: UploadLifecycle.Settings {
        UploadLifecycle.Settings(
            delay: writeBackDelay, backoffBase: backoffBase, backoffMax: backoffMax, parkInterval: parkInterval,
            jitter: RetryPolicy.standard.jitter)
    }
}
