import CCurl
import Foundation

/// One request in flight: its easy handle, header list, body reader, response receiver and continuation.
///
/// Lifetime: the driver loop holds the only strong reference from `curl_multi_add_handle` until after
/// `curl_multi_remove_handle`; curl's callbacks and `CURLOPT_PRIVATE` get an unretained pointer. So the state
/// is retained once and released once (also on cancellation), and curl can never call into freed state.
/// Confined to the driver thread.
final class CurlTransfer {
    let id: UInt64
    let easy: UnsafeMutableRawPointer
    var continuation: CheckedContinuation<HTTPResponse, any Error>?
    var headerList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer: UnsafeMutablePointer<CChar>
    var bodyReader: RequestBodyReader?
    var receiver: ResponseReceiver
    /// Why a callback aborted the transfer; reported instead of curl's generic write/read error.
    var callbackFailure: HTTPError?
    /// How many times curl sent the request (each followed redirect is one more; so is a resend of its own).
    var requestsSent = 0

    init(id: UInt64, request: HTTPRequest, configuration: HTTPClientConfiguration,
         pool: ReceiveBufferPool) throws(HTTPError) {
        guard let easy = curl_easy_init() else {
            throw HTTPError(kind: .transport, message: "curl_easy_init failed", curlCode: Int(CURLE_FAILED_INIT.rawValue))
        }
        self.id = id
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        receiver = ResponseReceiver(destination: request.responseBody, pool: pool)
        try configure(request, configuration)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Finishes with curl's result for this transfer (after the driver removed the handle).
    func complete(with code: CURLcode) {
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            finish(.failure(callbackFailure ?? HTTPError.transport(code, detail: detail)))
            return
        }
        var status = 0
        _ = boxfs_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var url: UnsafeMutablePointer<CChar>?
        _ = boxfs_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &url)
        var redirects = 0
        _ = boxfs_curl_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &redirects)
        var response = HTTPResponse(
            status: status,
            headers: receiver.headers,
            body: receiver.takeBody(),
            bodyBytesWritten: receiver.bytesWritten,
            effectiveURL: url.map { String(cString: $0) } ?? ""
        )
        response.wasSentAgain = requestsSent > redirects + 1
        finish(.success(response))
    }

    /// Resumes the awaiting caller; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
    }

    // MARK: callbacks (called by curl on the driver thread, from inside curl_multi_perform)

    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        do {
            try receiver.receiveBody(chunk)
            return chunk.count
        } catch {
            callbackFailure = error
            return 0  // fewer bytes than given: curl aborts with CURLE_WRITE_ERROR
        }
    }

    func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
        receiver.receiveHeaderLine(line)
        return line.count
    }

    func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let bodyReader else { return 0 }
        do {
            return try bodyReader.read(into: buffer)
        } catch {
            callbackFailure = error
            return Int(CURL_READFUNC_ABORT)
        }
    }

    func seekBody(to position: Int64) -> Int32 {
        bodyReader?.seek(to: position) == true ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL
    }
}
