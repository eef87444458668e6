import Foundation
import XCTest

@testable import BoxAPI

final class DateParsingTests: XCTestCase {
    func testOffsetsAndUTC() {
        let instant = 1_355_338_530.0  // 2012-12-12T18:55:30Z
        XCTAssertEqual(BoxDate.parse("2012-12-12T10:55:30-08:00")?.timeIntervalSince1970, instant)
        XCTAssertEqual(BoxDate.parse("2012-12-12T18:55:30Z")?.timeIntervalSince1970, instant)
        XCTAssertEqual(BoxDate.parse("2012-12-12T18:55:30z")?.timeIntervalSince1970, instant)
        XCTAssertEqual(BoxDate.parse("2012-12-12T18:55:30+00:00")?.timeIntervalSince1970, instant)
        XCTAssertEqual(BoxDate.parse("2012-12-13T00:25:30+05:30")?.timeIntervalSince1970, instant)
        XCTAssertEqual(BoxDate.parse("2012-12-13T00:25:30+0530")?.timeIntervalSince1970, instant)
    }

    func testFractionalSeconds() throws {
        let date = try XCTUnwrap(BoxDate.parse("2017-04-18T01:45:15.123Z"))
        XCTAssertEqual(date.timeIntervalSince1970, 1_492_479_915.123, accuracy: 0.000_5)
        let micro = try XCTUnwrap(BoxDate.parse("2017-04-18T01:45:15.000001-07:00"))
        XCTAssertEqual(micro.timeIntervalSince1970, 1_492_479_915 + 7 * 3600 + 0.000_001, accuracy: 0.000_000_5)
    }

    /// Agrees with Foundation's ISO 8601 parser over many dates, including leap days and pre-1970.
    func testAgreesWithFoundationAcrossTheCalendar() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let seconds = Double(Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator))
            let date = Date(timeIntervalSince1970: seconds)
            let offset = Int.random(in: -12...14, using: &generator) * 3600 + [0, 1800, 2700].randomElement()!
            formatter.timeZone = TimeZone(secondsFromGMT: offset)
            let text = formatter.string(from: date)
            XCTAssertEqual(BoxDate.parse(text), date, text)
        }
        XCTAssertEqual(BoxDate.parse("2000-02-29T00:00:00Z"), referenceDate("2000-02-29T00:00:00Z"))
        XCTAssertEqual(BoxDate.parse("1969-12-31T23:59:59Z")?.timeIntervalSince1970, -1)
    }

    func testRejectsWhatIsNotRFC3339() {
        for text in [
            "", "2012-12-12", "2012-12-12T10:55:30", "2012-13-01T00:00:00Z", "2013-02-29T00:00:00Z",
            "2012-12-12T24:00:00Z", "2012-12-12T10:55:30.Z", "2012-12-12T10:55:30+8:00", "12/12/2012",
            "2012-12-12T10:55:30Zjunk", "1355338530",
        ] {
            XCTAssertNil(BoxDate.parse(text), text)
        }
    }

    func testUnparseableDateIsADecodingError() {
        let json = Data(#"{"type":"file","id":"1","name":"a","modified_at":"yesterday"}"#.utf8)
        XCTAssertThrowsError(try BoxJSON.decode(ItemDTO.self, from: json)) { error in
            XCTAssertTrue("\(error)".contains("modified_at: \"yesterday\" is not an RFC 3339 date-time"), "\(error)")
        }
    }
}
