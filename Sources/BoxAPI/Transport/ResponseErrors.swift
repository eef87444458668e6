import BoxAuth
import CurlHTTP
import Foundation

extension BoxAPIError {
    /// An error answer: Box's error body when there is one, the `WWW-Authenticate` challenge,
    /// `box-request-id` and `Retry-After` headers.
    init(response: HTTPResponse, request: String?) {
        let body = response.body.isEmpty ? nil : try? JSONDecoder().decode(ErrorBodyDTO.self, from: response.body)
        let challenge = response.headers["WWW-Authenticate"].flatMap { BearerChallenge(headerValue: $0) }
        self.init(
            kind: Self.kind(forStatus: response.status),
            status: response.status,
            code: body?.code ?? challenge?.error,
            message: body?.message ?? challenge?.errorDescription,
            requestID: body?.requestID ?? response.headers["box-request-id"],
            retryAfter: response.headers["Retry-After"].flatMap { RetryAfter.seconds(from: $0) },
            authError: challenge?.error,
            conflicts: body?.conflicts ?? [],
            request: request)
    }

    /// A failed transfer. The HTTP layer's text is kept, minus the URL (a pre-signed download URL
    /// is itself a credential).
    init(transport error: HTTPError, request: BoxRequest) {
        let detail = String(describing: error).replacingOccurrences(of: request.url, with: "<url>")
        self.init(kind: .transport(detail, isTransient: error.isTransient), request: request.logDescription)
        isClientShutDown = error.kind == .shutdown
    }
}
