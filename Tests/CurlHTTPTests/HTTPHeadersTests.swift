import Testing
@testable import CurlHTTP

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsOrder() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-Multi": "one"]
        headers.add(name: "x-multi", value: "two")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["X-MULTI"] == "one")
        #expect(headers.values(for: "X-Multi") == ["one", "two"])
        #expect(headers["Absent"] == nil)
        #expect(headers.map(\.name) == ["Content-Type", "X-Multi", "x-multi"])
    }

    @Test func settingReplacesEveryFieldOfThatName() {
        var headers: HTTPHeaders = ["A": "1", "B": "2"]
        headers.add(name: "a", value: "3")
        headers["A"] = "4"
        #expect(headers.values(for: "a") == ["4"])
        #expect(headers.map(\.name) == ["A", "B"])
        headers["b"] = nil
        #expect(headers.count == 1)
        headers["C"] = "5"
        #expect(headers.map(\.name) == ["A", "C"])
    }

    @Test func descriptionNeverShowsCredentials() {
        let headers: HTTPHeaders = ["Authorization": "Bearer secret-token", "Accept": "*/*"]
        let request = HTTPRequest(url: "http://127.0.0.1/", headers: headers)
        for text in [headers.description, "\(headers)", String(reflecting: headers), "\(request)"] {
            #expect(!text.contains("secret-token"))
        }
        #expect(headers.description.contains("Accept: */*"))
    }

    @Test func receiverKeepsOnlyTheFinalResponseHead() throws {
        var receiver = ResponseReceiver(destination: .memory)
        for line in ["HTTP/1.1 302 Found\r\n", "Location: /next\r\n", "\r\n",
                     "HTTP/1.1 100 Continue\r\n", "\r\n",
                     "HTTP/1.1 200 OK\r\n", "Content-Length:  5 \r\n", "X-Folded: a\r\n", "\tb\r\n", "\r\n"] {
            Array(line.utf8).withUnsafeBytes { receiver.receiveHeaderLine($0) }
        }
        try Array("hello".utf8).withUnsafeBytes { try receiver.receiveBody($0) }
        #expect(receiver.status == 200)
        #expect(receiver.headers["Location"] == nil)
        #expect(receiver.headers["Content-Length"] == "5")
        #expect(receiver.headers["X-Folded"] == "a b")
        #expect(String(decoding: receiver.takeBody(), as: UTF8.self) == "hello")
    }

    @Test func invalidRequestsAreRejectedWithoutEchoingValues() {
        let request = HTTPRequest(url: "http://127.0.0.1/", headers: ["X-Token": "secret\r\nInjected: 1"])
        #expect {
            try request.validate()
        } throws: { error in
            let error = error as? HTTPError
            return error?.kind == .invalidRequest && error?.message.contains("secret") == false
        }
        #expect(throws: HTTPError.self) { try HTTPRequest(url: "ftp://host/file").validate() }
        #expect(throws: HTTPError.self) { try HTTPRequest(url: "http://h/", headers: ["Bad Name": "v"]).validate() }
    }
}
