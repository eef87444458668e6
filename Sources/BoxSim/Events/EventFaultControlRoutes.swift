import Foundation
import Hummingbird

/// `/_control/event_faults` (only with `--control`; docs/BOXSIM.md "Event faults"). `POST` changes the fields it
/// names: `drop` and `delay_ms` (whole numbers ≥ 0), `duplicate_rate` and `out_of_order_rate` (shares 0…1), and
/// `expire: true` (every event recorded so far is past Box's retention); `GET` shows them; `DELETE` clears all but the
/// expiry (expired events stay gone; events already delayed keep their time).
struct EventFaultControlRoutes: Sendable {
    let store: Store

    func register(on router: Router<BoxContext>) {
        router.post("_control/event_faults") { request, _ in
            let body = try await JSONBody.read(request)
            var faults = try await store.eventFaults()
            for (name, field) in [("drop", \EventFaults.dropRemaining), ("delay_ms", \EventFaults.delayMilliseconds)]
            where body.keys.contains(name) {
                guard let value = JSONBody.int64(body[name]), value >= 0 else {
                    throw BoxError.badRequest("\(name) must be a whole number, 0 or more")
                }
                faults[keyPath: field] = value
            }
            for (name, field) in [("duplicate_rate", \EventFaults.duplicateRate),
                                  ("out_of_order_rate", \EventFaults.outOfOrderRate)]
            where body.keys.contains(name) {
                guard let value = (body[name] as? NSNumber)?.doubleValue, (0...1).contains(value) else {
                    throw BoxError.badRequest("\(name) must be a number from 0 to 1")
                }
                faults[keyPath: field] = value
            }
            if body.keys.contains("expire") {
                guard body["expire"] as? Bool == true else { throw BoxError.badRequest("expire takes only true") }
                faults.expiredThrough = try await store.latestEventID()
            }
            try await store.setEventFaults(faults)
            return jsonResponse(faults.json)
        }
        router.get("_control/event_faults") { _, _ in jsonResponse(try await store.eventFaults().json) }
        router.delete("_control/event_faults") { _, _ in
            let expired = try await store.eventFaults().expiredThrough
            try await store.setEventFaults(EventFaults(expiredThrough: expired))
            return Response(status: .noContent)
        }
    }
}
