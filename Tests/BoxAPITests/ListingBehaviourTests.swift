import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// Paging and path resolution against scripted listings.
final class ListingBehaviourTests: XCTestCase {
    /// Serves `count` files in pages of at most `limit` from the query, with opaque markers.
    private func markerServer(count: Int, markerSuffix: String = "+/=") -> ScriptedHTTP {
        ScriptedHTTP { request, _ in
            let query = Self.query(of: request.url)
            let limit = Int(query["limit"] ?? "") ?? 100
            let start = query["marker"].flatMap { Int($0.dropLast(markerSuffix.count)) } ?? 0
            let end = min(count, start + limit)
            let entries = (start..<end).map { #"{"type":"file","id":"\#($0 + 1)","name":"f\#($0)","size":\#($0)}"# }
            let next = end < count ? "\"\(end)\(markerSuffix)\"" : (start % 2 == 0 ? "null" : "\"\"")
            return ScriptedHTTP.response(
                200, json: #"{"entries":[\#(entries.joined(separator: ","))],"limit":\#(limit),"next_marker":\#(next)}"#)
        }
    }

    static func query(of url: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in (URLComponents(string: url)?.queryItems ?? []) { result[pair.name] = pair.value }
        return result
    }

    func testMarkerPagingMakesOneCallPerThousandEntries() async throws {
        let http = markerServer(count: 2_345)
        let items = try await BoxClient.scripted(http).folderItems(id: "77")
        XCTAssertEqual(items.count, 2_345)
        XCTAssertEqual(items.map(\.name), (0..<2_345).map { "f\($0)" })
        XCTAssertEqual(http.requests.count, 3)
        let queries = http.requests.map { Self.query(of: $0.url) }
        XCTAssertEqual(queries.map { $0["marker"] }, [nil, "1000+/=", "2000+/="])
        XCTAssertTrue(queries.allSatisfy { $0["limit"] == "1000" && $0["usemarker"] == "true" })
        XCTAssertTrue(queries.allSatisfy { $0["fields"] == BoxItem.fields })
        XCTAssertTrue(http.requests.allSatisfy { $0.url.hasPrefix("https://api.test/2.0/folders/77/items?") })
        XCTAssertTrue(http.requests[1].url.contains("marker=1000%2B%2F%3D"), http.requests[1].url)
    }

    func testExactMultipleAndEmptyFolder() async throws {
        let exact = markerServer(count: 2_000)
        let exactItems = try await BoxClient.scripted(exact).folderItems(id: "1")
        XCTAssertEqual(exactItems.count, 2_000)
        XCTAssertEqual(exact.requests.count, 2)
        let empty = markerServer(count: 0)
        let noItems = try await BoxClient.scripted(empty).folderItems(id: "1")
        XCTAssertEqual(noItems, [])
        XCTAssertEqual(empty.requests.count, 1)
    }

    func testOffsetPagingFallback() async throws {
        let http = ScriptedHTTP { request, _ in
            let offset = Int(Self.query(of: request.url)["offset"] ?? "0")!
            let entries = (offset..<min(offset + 2, 5)).map { #"{"type":"folder","id":"\#($0)","name":"d\#($0)"}"# }
            return ScriptedHTTP.response(
                200, json: #"{"total_count":5,"entries":[\#(entries.joined(separator: ","))],"offset":\#(offset),"limit":2}"#)
        }
        let items = try await BoxClient.scripted(http).folderItems(id: "0")
        XCTAssertEqual(items.map(\.id), ["0", "1", "2", "3", "4"])
        XCTAssertEqual(http.requests.count, 3)
    }

    func testRepeatedMarkerStopsWithAnError() async throws {
        let http = ScriptedHTTP { _, _ in
            ScriptedHTTP.response(200, json: #"{"entries":[{"type":"file","id":"1","name":"a"}],"next_marker":"same"}"#)
        }
        do {
            _ = try await BoxClient.scripted(http).folderItems(id: "0")
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            guard case .decoding = error.kind else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(http.requests.count, 2)
    }

    func testPathResolutionIsCaseInsensitiveAndPrefersExactNames() async throws {
        let listings: [String: String] = [
            "0": #"[{"type":"folder","id":"10","name":"Documents"},{"type":"file","id":"11","name":"notes.txt"}]"#,
            "10": #"[{"type":"file","id":"20","name":"Report.PDF"},{"type":"file","id":"21","name":"report.pdf"}]"#,
        ]
        let http = ScriptedHTTP { request, _ in
            let path = BoxURL.path(of: request.url)
            if path == "/2.0/folders/0" {
                return ScriptedHTTP.response(200, json: #"{"type":"folder","id":"0","name":"All Files"}"#)
            }
            let id = path.split(separator: "/")[2]
            return ScriptedHTTP.response(200, json: #"{"entries":\#(listings[String(id)] ?? "[]"),"next_marker":null}"#)
        }
        let client = BoxClient.scripted(http)
        let root = try await client.item(atPath: "/")
        XCTAssertEqual(root.id, "0")
        let caseFolded = try await client.item(atPath: "/documents/REPORT.pdf")
        XCTAssertEqual(caseFolded.id, "20")
        let exact = try await client.item(atPath: "/Documents/report.pdf")
        XCTAssertEqual(exact.id, "21")
        let relative = try await client.item(atPath: "NOTES.TXT")
        XCTAssertEqual(relative.id, "11")
        for missing in ["/nope", "/notes.txt/x", "/Documents/none.pdf"] {
            do {
                _ = try await client.item(atPath: missing)
                XCTFail("\(missing) should not resolve")
            } catch let error as BoxAPIError {
                XCTAssertEqual(error.kind, .notFound, missing)
            }
        }
    }

    func testURLBuilding() {
        XCTAssertEqual(BoxEndpoints(serverBase: "http://127.0.0.1:8080/").uploadBase, "http://127.0.0.1:8080/api")
        XCTAssertEqual(BoxEndpoints.box.apiBase, "https://api.box.com")
        XCTAssertEqual(BoxURL.encode("a b/é+="), "a%20b%2F%C3%A9%2B%3D")
        XCTAssertEqual(BoxURL.path(of: "https://h:1/2.0/x?y=1"), "/2.0/x")
        XCTAssertEqual(BoxURL.resolve("//cdn.test/a", against: "https://h/2.0/x"), "https://cdn.test/a")
        XCTAssertEqual(BoxURL.resolve("b", against: "https://h/2.0/x"), "https://h/2.0/b")
    }
}
