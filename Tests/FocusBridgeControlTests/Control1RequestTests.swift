import FocusBridgeControl
import FocusBridgeDBus
import XCTest

// The one empty adoption focusctl and the server declare too: the bodies built and read here are
// the ones focusctl sends and the server reads.
extension Variant: Control1Body {}

/// `Control1Request`, the one encoding of Control1's arguments that focusctl sends and the
/// server reads: each method's body has the type of its in-signature (the XML's, through
/// `Control1Method`), reads back as the same request, and a body of another type is `Invalid`.
final class Control1RequestTests: XCTestCase {
    /// One request per method, with arguments that differ from the defaults a reader might fill in.
    static let examples: [Control1Request] = [
        .status, .history(limit: 7, app: "Slack"), .report(days: 30), .review(deliver: true), .reload, .setSilent(true),
        .explain(json: #"{"app":"mail"}"#), .focusOn(name: "Work", seconds: 5400, until: "17:30"), .focusOff, .focusList,
        .summary, .deliverSummary, .explainNotification(id: 41), .show(id: 42), .dismiss(id: 43), .dismissHeld,
        .showAll(digest: 44), .snooze(id: 45, seconds: 600), .watch, .apps,
        .setAppChoice(app: "Slack", key: "delivery", value: "summary", new: true),
        .resetAppChoice(app: "Slack", key: ""), .mute(app: "Slack", until: 1_800_000_000.5, new: false),
        .unmute(app: "Slack"), .shareStatus, .shareForget(device: "laptop"),
    ]

    func testEveryMethodHasAnExample() {
        XCTAssertEqual(Set(Self.examples.map(\.method)), Set(Control1Method.allCases))
    }

    func testTheBodyHasTheMethodsInSignature() {
        for request in Self.examples {
            let signature = request.method.inSignature
            let body: Variant? = request.body()
            XCTAssertEqual(body?.typeString, signature.isEmpty ? nil : "(\(signature))", "\(request)")
        }
    }

    func testEachRequestReadsBackAsItself() throws {
        for request in Self.examples {
            let body: Variant? = request.body()
            XCTAssertEqual(try Control1Request(request.method, body: body), request)
            // What the server's connection hands over for a call with no arguments: the empty tuple.
            if body == nil {
                XCTAssertEqual(try Control1Request(request.method, body: Variant.tuple([])), request)
            }
        }
        // Values a reader must not bend: the extremes of each type, text that is not ASCII.
        let extremes: [Control1Request] = [
            .history(limit: .max, app: ""), .snooze(id: 0, seconds: -.infinity), .setSilent(false),
            .focusOn(name: "Tiefe Arbeit ✍️", seconds: 0, until: ""), .mute(app: "a\nb", until: .greatestFiniteMagnitude, new: true),
        ]
        for request in extremes {
            let body: Variant? = request.body()
            XCTAssertEqual(try Control1Request(request.method, body: body), request)
        }
        // NaN is never equal to itself: compared by what it is.
        let nan: Variant? = Control1Request.snooze(id: 1, seconds: .nan).body()
        guard case .snooze(_, let seconds) = try Control1Request(.snooze, body: nan) else { return XCTFail("not a snooze") }
        XCTAssertTrue(seconds.isNaN)
    }

    func testABodyOfAnotherTypeIsInvalid() {
        let cases: [(Control1Method, Variant?, String)] = [
            (.setSilent, .tuple([.string("yes")]), "SetSilent takes (b), not (s)"),
            (.history, .tuple([.uint32(5)]), "History takes (us), not (u)"),
            (.history, .tuple([.string("Slack"), .uint32(5)]), "History takes (us), not (su)"),
            (.show, nil, "Show takes (u), not ()"),
            (.show, .tuple([.int32(5)]), "Show takes (u), not (i)"),
            (.status, .tuple([.string("extra")]), "Status takes (), not (s)"),
            (.mute, .tuple([.string("Slack"), .double(1), .bool(true), .bool(true)]), "Mute takes (sdb), not (sdbb)"),
            (.explain, .string("not a tuple"), "Explain takes (s), not s"),
        ]
        for (method, body, message) in cases {
            XCTAssertThrowsError(try Control1Request(method, body: body), "\(method)") { error in
                XCTAssertEqual((error as? Control1Request.Invalid)?.description, message)
            }
        }
    }
}
