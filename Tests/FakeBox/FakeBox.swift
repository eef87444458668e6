import CurlHTTP
import Foundation
import Synchronization

/// An in-process Box: answers the HTTP requests of `BoxClient` (the API, uploads, downloads) from a
/// `FakeBoxState`, with no socket and no thread of its own, so the filesystem core can be driven whole (the
/// uploader and the read path included) thousands of times a minute. Faults are drawn from a seeded generator:
/// error statuses before a change is made, answers lost after it was made, downloads cut part-way. A test
/// also sets rules (`FakeBoxRule`) that do one of these to chosen requests, or hold one on the wire until released.
///
/// Lock order: `state` is a leaf; nothing is called while it is held (bodies are delivered after).
public final class FakeBox: HTTPSending {
    public static let apiBase = "http://fake.box"
    public static let uploadBase = "http://fake.box/api"

    private let state: Mutex<Shared>

    struct Shared {
        var box = FakeBoxState()
        var faults: FakeBoxFaults
        var random: SplitMix64
        var requests: [String] = []
        var unknownRoutes: [String] = []
        var rules: [Int: RuleState] = [:]
        var nextRule = 1
        /// The network is cut: every request fails as a connection to an address where nothing answers.
        var cut = false
    }

    struct RuleState {
        var rule: FakeBoxRule
        var seen = 0
        var used = 0
        var released = false

        /// Whether this request is one the rule acts on (counting it when it is).
        mutating func takes(method: String, path: String) -> Bool {
            guard rule.method.isEmpty || rule.method == method, path.hasPrefix(rule.pathPrefix) else { return false }
            seen += 1
            guard seen > rule.skip, used < rule.count else { return false }
            used += 1
            return true
        }
    }

    public init(faults: FakeBoxFaults = FakeBoxFaults(), seed: UInt64 = 1) {
        state = Mutex(Shared(faults: faults, random: SplitMix64(seed: seed)))
    }

    /// A copy of the account as it is now.
    public var snapshot: FakeBoxState { state.withLock { $0.box } }

    /// Every request answered so far, as `METHOD path`.
    public var requestLog: [String] { state.withLock { $0.requests } }

    /// Requests no route knew (a test fails on any: the fake would be answering what Box would not).
    public var unknownRoutes: [String] { state.withLock { $0.unknownRoutes } }

    public func setFaults(_ faults: FakeBoxFaults) { state.withLock { $0.faults = faults } }

    /// Cuts the network (`true`) or restores it: while cut, every request fails at once as libcurl reports a
    /// connection refused (`CURLE_COULDNT_CONNECT`), the failure the client takes for Box out of reach. Nothing
    /// reaches the account and no fault is drawn, so a seed's faults replay alike whatever was tried meanwhile.
    public func setCut(_ cut: Bool) { state.withLock { $0.cut = cut } }

    public var isCut: Bool { state.withLock { $0.cut } }

    /// The error of a request sent while the network is cut, worded as libcurl words a refused connection.
    public static let unreachable = HTTPError(
        kind: .transport, message: "Couldn't connect to server: Failed to connect to fake.box port 80: Connection refused",
        curlCode: 7)

    /// Adds a rule for the requests it matches (boxsim's fault rules, in the fake: an error, an answer lost, a
    /// request held on the wire until `release`); answers its id.
    @discardableResult
    public func addRule(_ rule: FakeBoxRule) -> Int {
        state.withLock { shared in
            let id = shared.nextRule
            shared.nextRule += 1
            shared.rules[id] = RuleState(rule: rule)
            return id
        }
    }

    /// The rule acts on no more requests (those it holds stay held until `release`).
    public func removeRule(_ id: Int) {
        state.withLock { shared in
            guard let used = shared.rules[id]?.used else { return }
            shared.rules[id]?.rule.count = used
        }
    }

    /// Lets the requests a `hold` rule holds go on (and those it would hold later pass at once).
    public func release(_ id: Int) { state.withLock { $0.rules[id]?.released = true } }

    /// How many requests the rule has acted on.
    public func uses(of id: Int) -> Int { state.withLock { $0.rules[id]?.used ?? 0 } }

    /// Waits (`seconds` at most) until the rule has acted on `count` requests; answers whether it has.
    public func waitUntilUsed(_ id: Int, count: Int = 1, seconds: Double = 10) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while uses(of: id) < count {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    /// A change made on Box by someone else (the web app, another machine), applied between requests.
    public func change<T>(_ body: (inout FakeBoxState) throws(FakeBoxError) -> T) throws(FakeBoxError) -> T {
        try state.withLock { shared throws(FakeBoxError) -> T in try body(&shared.box) }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if isCut { throw Self.unreachable }
        let body = try Self.bodyBytes(request.body)
        let path = Self.path(of: request.url)
        let ruled = state.withLock { shared -> (id: Int, action: FakeBoxRule.Action)? in
            for id in shared.rules.keys.sorted() where shared.rules[id]!.takes(method: request.method.rawValue, path: path) {
                return (id, shared.rules[id]!.rule.action)
            }
            return nil
        }
        if let ruled, case .hold = ruled.action {
            // On the wire: Box does nothing with it until the test lets it go (a killed client's request too).
            while !state.withLock({ $0.rules[ruled.id]?.released ?? true }) {
                // Held for a cancelled task too (a killed daemon's request stays on the wire), whose own sleep
                // would end at once.
                await Task.detached { try? await Task.sleep(for: .milliseconds(1)) }.value
            }
        }
        let answer = state.withLock { shared -> FakeAnswer in
            shared.requests.append("\(request.method.rawValue) \(path)")
            let roll = shared.random.unit()
            let faults = shared.faults
            var router = FakeBoxRouter(box: shared.box)
            if case .status(let status)? = ruled?.action {
                return FakeAnswer.error(status, status >= 500 ? "internal_server_error" : "fake_rule", "rule")
            }
            if roll < faults.errorRate, !request.url.contains("/dl/") {
                return FakeAnswer.error(roll < faults.errorRate / 2 ? 500 : 503, "internal_server_error", "fault")
            }
            var answer = router.answer(request, body: body)
            if case .hold(let lose)? = ruled?.action, lose { answer.lost = true }
            if case .loseAnswer? = ruled?.action { answer.lost = true }
            shared.box = router.box
            if router.unknown { shared.unknownRoutes.append("\(request.method.rawValue) \(request.url)") }
            let lost = shared.random.unit()
            if lost < faults.lostAnswerRate, router.changed { answer.lost = true }
            let cut = shared.random.unit()
            if cut < faults.cutDownloadRate, request.url.contains("/dl/"), answer.body.count > 1 {
                answer.cutAfter = Int(shared.random.unit() * Double(answer.body.count - 1))
            }
            return answer
        }
        if answer.lost {
            throw HTTPError(kind: .transport, message: "fake: the connection closed before the answer", curlCode: 52)
        }
        return try deliver(answer, to: request)
    }

    /// Hands the answer's body to where the request wants it (memory, a file descriptor, a sink).
    private func deliver(_ answer: FakeAnswer, to request: HTTPRequest) throws -> HTTPResponse {
        var response = HTTPResponse(status: answer.status, headers: HTTPHeaders(answer.headers), body: Data(),
                                    effectiveURL: request.url)
        let bytes = answer.cutAfter.map { Array(answer.body.prefix($0)) } ?? answer.body
        let success = (200..<300).contains(answer.status)
        switch request.responseBody {
        case .sink(let sink) where success:
            sink.responseStarted(status: answer.status, headers: response.headers)
            let accepted = bytes.withUnsafeBytes { sink.receive($0) }
            guard accepted else { throw HTTPError(kind: .responseDestination, message: "fake: the sink refused the body") }
            response.bodyBytesWritten = Int64(bytes.count)
        case .fileDescriptor(let descriptor, let offset) where success:
            var done = 0
            while done < bytes.count {
                let count = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw HTTPError(kind: .responseDestination, message: "fake: pwrite failed", systemErrno: errno)
                }
                done += count
            }
            response.bodyBytesWritten = Int64(bytes.count)
        default:
            response.body = Data(bytes)
        }
        if answer.cutAfter != nil {
            throw HTTPError(kind: .transport, message: "fake: the download was cut part-way", curlCode: 18)
        }
        return response
    }

    static func path(of url: String) -> String {
        URLComponents(string: url)?.path ?? url
    }

    static func bodyBytes(_ body: HTTPBody) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for piece in body.pieces {
            switch piece {
            case .data(let data): bytes += data
            case .file(let path, let offset, let length):
                guard let handle = FileHandle(forReadingAtPath: path) else {
                    throw HTTPError(kind: .requestBody, message: "fake: cannot open the body's file")
                }
                defer { try? handle.close() }
                try handle.seek(toOffset: UInt64(offset))
                let data = try handle.read(upToCount: Int(length)) ?? Data()
                guard data.count == Int(length) else {
                    throw HTTPError(kind: .requestBody, message: "fake: the body's file is shorter than its range")
                }
                bytes += data
            default: break
            }
        }
        return bytes
    }
}

/// What the fake does to the requests a rule matches (method, and a prefix of the URL's path such as
/// `/api/2.0/files/content`, a new file's upload), after `skip` of them, for `count` of them.
public struct FakeBoxRule: Sendable {
    public enum Action: Sendable {
        /// Answers this status before anything is done.
        case status(Int)
        /// Box makes the change; the answer is lost (the connection closes).
        case loseAnswer
        /// The request waits on the wire until `FakeBox.release`, then Box handles it; `losingTheAnswer`: the
        /// answer is then lost (the client died meanwhile).
        case hold(losingTheAnswer: Bool)
    }

    public var method: String
    public var pathPrefix: String
    public var skip: Int
    public var count: Int
    public var action: Action

    public init(_ method: String = "", _ pathPrefix: String, skip: Int = 0, count: Int = 1, _ action: Action) {
        self.method = method
        self.pathPrefix = pathPrefix
        self.skip = skip
        self.count = count
        self.action = action
    }

    /// A new file's upload.
    public static let newFile = "/api/2.0/files/content"
}

/// Which faults the fake injects, each a probability per request.
public struct FakeBoxFaults: Sendable {
    /// 500 or 503 before anything is done (not on downloads' second step).
    public var errorRate: Double
    /// The change is made, and the answer is lost (the connection closes): the client must recognise its
    /// own change when it asks again.
    public var lostAnswerRate: Double
    /// A download's body stops part-way.
    public var cutDownloadRate: Double

    public init(errorRate: Double = 0, lostAnswerRate: Double = 0, cutDownloadRate: Double = 0) {
        self.errorRate = errorRate
        self.lostAnswerRate = lostAnswerRate
        self.cutDownloadRate = cutDownloadRate
    }

    public static let off = FakeBoxFaults()
    /// Errors before anything is done, and downloads cut part-way.
    public static let on = FakeBoxFaults(errorRate: 0.05, cutDownloadRate: 0.03)
    /// Also answers lost after Box made the change (of a folder, a move, a delete, an upload).
    public static let all = FakeBoxFaults(errorRate: 0.05, lostAnswerRate: 0.03, cutDownloadRate: 0.03)
}

/// A small, fast generator whose sequence a seed fixes (for replays).
public struct SplitMix64: Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// In [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// One process's connections to a `FakeBox`: severed when the process is killed, so the ended core can send
/// nothing more (a request already answered stays answered, as on the wire).
public final class FakeBoxConnection: HTTPSending {
    private let box: FakeBox
    private let severed = Mutex(false)

    public init(to box: FakeBox) { self.box = box }

    /// Every later request fails as a connection to a dead process would.
    public func sever() { severed.withLock { $0 = true } }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if severed.withLock({ $0 }) { throw HTTPError(kind: .shutdown, message: "fake: the process was killed") }
        return try await box.send(request)
    }
}
