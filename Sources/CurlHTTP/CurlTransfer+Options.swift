import CCurl

/// Translating an `HTTPRequest` into easy-handle options.
extension CurlTransfer {
    func configure(_ request: HTTPRequest, _ configuration: HTTPClientConfiguration) throws(HTTPError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_NOSIGNAL, 1)  // no SIGALRM for timeouts: we run on many threads
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_USERAGENT, configuration.userAgent)
        try set(CURLOPT_BUFFERSIZE, configuration.receiveBufferSize)
        try set(CURLOPT_UPLOAD_BUFFERSIZE, configuration.uploadBufferSize)
        try check(boxfs_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(boxfs_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context))
        try set(CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
        try set(CURLOPT_MAXREDIRS, configuration.maxRedirects)
        // curl sends `Accept-Encoding: gzip` and decodes the answer as it arrives.
        if request.acceptsCompressedBody { try set(CURLOPT_ACCEPT_ENCODING, "gzip") }
        try configureTimeouts(request.timeouts ?? configuration.timeouts)
        try configureCallbacks(context)
        try configureMethodAndBody(request, context)
        try configureHeaders(request)
    }

    private func configureTimeouts(_ timeouts: HTTPTimeouts) throws(HTTPError) {
        try set(CURLOPT_CONNECTTIMEOUT_MS, timeouts.connect.curlMilliseconds)
        if timeouts.lowSpeedLimit > 0 {
            try set(CURLOPT_LOW_SPEED_LIMIT, timeouts.lowSpeedLimit)
            try set(CURLOPT_LOW_SPEED_TIME, timeouts.lowSpeedTime.curlSeconds)
        }
        if let total = timeouts.total {
            try set(CURLOPT_TIMEOUT_MS, total.curlMilliseconds)
        }
    }

    private func configureCallbacks(_ context: UnsafeMutableRawPointer) throws(HTTPError) {
        try check(boxfs_curl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: bytes, count: size * count))
        })
        try check(boxfs_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        try check(boxfs_curl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION) { bytes, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: bytes, count: size * count))
        })
        try check(boxfs_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        try check(boxfs_curl_easy_setopt_prereq_function(easy, CURLOPT_PREREQFUNCTION) { context, _, _, _, _ in
            Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue().requestsSent += 1
            return CURL_PREREQFUNC_OK
        })
        try check(boxfs_curl_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context))
    }

    /// Bodies go through the read callback with a known size, so curl sends `Content-Length` (never chunked).
    private func configureMethodAndBody(_ request: HTTPRequest, _ context: UnsafeMutableRawPointer) throws(HTTPError) {
        let sendsBody = request.body.length > 0 || [.post, .put, .patch].contains(request.method)
        if request.method == .head {
            try set(CURLOPT_NOBODY, 1)
            return
        }
        guard sendsBody else {
            if request.method == .get {
                try set(CURLOPT_HTTPGET, 1)
            } else {
                try set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            }
            return
        }
        let reader = try RequestBodyReader(body: request.body)
        bodyReader = reader
        try set(CURLOPT_POST, 1)
        try check(boxfs_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(reader.length)))
        if request.method != .post {
            try set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        try check(boxfs_curl_easy_setopt_read_function(easy, CURLOPT_READFUNCTION) { buffer, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        })
        try check(boxfs_curl_easy_setopt_pointer(easy, CURLOPT_READDATA, context))
        try check(boxfs_curl_easy_setopt_seek_function(easy, CURLOPT_SEEKFUNCTION) { context, offset, origin in
            guard origin == SEEK_SET else { return CURL_SEEKFUNC_CANTSEEK }
            return Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue().seekBody(to: Int64(offset))
        })
        try check(boxfs_curl_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, context))
    }

    /// The caller's fields, plus: no `Expect: 100-continue` (a round trip per upload), and no form
    /// `Content-Type` that curl would otherwise invent for a body. `Content-Length` is curl's, from the body.
    private func configureHeaders(_ request: HTTPRequest) throws(HTTPError) {
        var lines: [String] = []
        for field in request.headers where !HTTPHeaders.sameName(field.name, "Content-Length") {
            // "Name;" is curl's way to send a field with an empty value ("Name:" would remove it).
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        if !request.headers.contains("Expect") {
            lines.append("Expect:")
        }
        if bodyReader != nil, !request.headers.contains("Content-Type") {
            lines.append("Content-Type:")
        }
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw HTTPError(kind: .transport, message: "out of memory building the header list")
            }
            headerList = appended
        }
        try check(boxfs_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPError) {
        try check(boxfs_curl_easy_setopt_long(easy, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws(HTTPError) {
        try check(boxfs_curl_easy_setopt_string(easy, option, value))
    }

    private func check(_ code: CURLcode) throws(HTTPError) {
        guard code == CURLE_OK else {
            throw HTTPError(kind: .invalidRequest, message: "curl rejected an option: " + String(cString: curl_easy_strerror(code)),
                            curlCode: Int(code.rawValue))
        }
    }
}
