import BoxAuth
import CurlHTTP
import Foundation

extension BoxClient {
    /// Sends `request` until it gets an accepted status, applying authorization, one token
    /// refresh on a rejected token, and the retry policy. Throws `BoxAPIError` (or
    /// `CancellationError` when the task is cancelled).
    ///
    /// The token is asked for before every attempt (a provider may renew one that is about to
    /// expire while a request waits to be retried), except right after a rejection, when the
    /// replacement the provider handed back is used.
    ///
    /// An error thrown after a repeat of a request whose earlier attempt may have been carried out
    /// says so (`earlierAttemptMayHaveLanded`): the caller of a `resolvesRepeats` request then
    /// recognises its own earlier attempt in the answer (a 404 to a repeated delete, a 409 naming
    /// the folder a repeated create made).
    func execute(_ request: BoxRequest) async throws -> HTTPResponse {
        var replacementToken: String?
        var askedForNewToken = false
        var attempt = 0
        var waited = 0.0
        var earlierAttemptMayHaveLanded = false
        // Box was already known to be out of reach when this request began: an address where nothing answers is
        // not tried again, so a read of content not on this machine fails at once instead of after the retry
        // policy's waits (the request that finds Box gone still waits them out, in case it was a moment's blip).
        let offlineAlready = connectivity.offline != nil
        while true {
            try Task.checkCancellation()
            attempt += 1
            var token: String?
            if request.isAuthorized {
                if let replacementToken { token = replacementToken } else { token = try await currentToken() }
            }
            replacementToken = nil
            let failure: RetryPolicy.Failure
            var error: BoxAPIError
            do {
                try await pace(request)
                let started = ContinuousClock.now
                let response: HTTPResponse
                do {
                    response = try await http.send(httpRequest(for: request, token: token))
                } catch let transportError as HTTPError {
                    // Only a failed connection says anything of Box (a body file that shrank, say, does not).
                    if !Task.isCancelled, transportError.kind == .transport {
                        connectivity.unreachable(transportError.description)
                    }
                    logger.debug("\(request.logDescription) failed after \(Self.milliseconds(since: started)) ms: \(transportError)")
                    throw transportError
                }
                connectivity.reached()
                logger.debug("\(request.logDescription) \(response.status) \(Self.milliseconds(since: started)) ms")
                if response.wasSentAgain { earlierAttemptMayHaveLanded = true }
                if request.acceptedStatuses.contains(response.status) { return response }
                if response.status == 401, let sent = token, !askedForNewToken, Self.rejectsToken(response) {
                    askedForNewToken = true
                    if let fresh = try await replacement(forRejected: sent) {
                        logger.debug(
                            "token rejected; retrying once with a new one",
                            metadata: ["request": "\(request.logDescription)"])
                        replacementToken = fresh
                        attempt -= 1  // the retry with a new token is not a failure of the request
                        continue
                    }
                }
                error = BoxAPIError(response: response, request: request.logDescription)
                error.earlierAttemptMayHaveLanded = earlierAttemptMayHaveLanded
                failure = .status(response.status, retryAfter: error.retryAfter)
            } catch let transportError as HTTPError {
                if Task.isCancelled { throw CancellationError() }
                error = BoxAPIError(transport: transportError, request: request)
                error.earlierAttemptMayHaveLanded = earlierAttemptMayHaveLanded
                failure = .transport(isTransient: transportError.isTransient
                    && ((retryPolicy.retriesUnreachable && !offlineAlready) || !transportError.isUnreachable))
            } catch is CancellationError {
                throw CancellationError()
            } catch let other as BoxAPIError {
                throw other
            } catch {
                // Not expected from the HTTP layer; reported in this layer's error type, never retried.
                throw BoxAPIError(
                    kind: .transport(String(describing: error), isTransient: false), request: request.logDescription)
            }
            let isRetryableAnswer: Bool
            if case .status(202, _) = failure {
                isRetryableAnswer = request.retriesWhileAccepted
            } else {
                isRetryableAnswer = true
            }
            guard isRetryableAnswer,
                let delay = retryPolicy.delay(
                    after: failure, attempt: attempt, isIdempotent: request.isIdempotent || request.resolvesRepeats,
                    waitedSoFar: waited, random: Double.random(in: 0..<1))
            else { throw error }
            if failure.mayHaveBeenApplied { earlierAttemptMayHaveLanded = true }
            logger.debug(
                "retrying after \(delay) s",
                metadata: ["request": "\(request.logDescription)", "attempt": "\(attempt)", "error": "\(error)"])
            try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            waited += delay
        }
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }

    /// Decodes a JSON answer into a DTO.
    func executeJSON<T: Decodable>(_ request: BoxRequest, as type: T.Type) async throws -> T {
        let response = try await execute(request)
        return try BoxJSON.decode(T.self, from: response.body, status: response.status, request: request.logDescription)
    }

    private func httpRequest(for request: BoxRequest, token: String?) -> HTTPRequest {
        var headers = HTTPHeaders()
        if request.isAuthorized {
            for (name, value) in extraHeaders { headers.add(name: name, value: value) }
            if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        }
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        return HTTPRequest(
            method: request.method, url: request.url, headers: headers, body: request.body,
            followRedirects: !request.isAuthorized, timeouts: request.timeouts, responseBody: request.responseBody,
            acceptsCompressedBody: request.answersInJSON)
    }

    /// A 401 counts as a rejected token unless its challenge names another problem
    /// (`invalid_request`, `insufficient_scope`): refreshing would not help those.
    static func rejectsToken(_ response: HTTPResponse) -> Bool {
        guard let header = response.headers["WWW-Authenticate"], let challenge = BearerChallenge(headerValue: header),
            let error = challenge.error
        else { return true }
        return challenge.rejectsToken || error.isEmpty
    }

    private func currentToken() async throws -> String {
        do {
            return try await tokens.accessToken()
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as BoxAPIError {
            throw error
        } catch {
            throw BoxAPIError(kind: .tokenUnavailable(String(describing: error)))
        }
    }

    private func replacement(forRejected token: String) async throws -> String? {
        do {
            return try await tokens.tokenRejected(token)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw BoxAPIError(kind: .tokenUnavailable(String(describing: error)))
        }
    }
}
