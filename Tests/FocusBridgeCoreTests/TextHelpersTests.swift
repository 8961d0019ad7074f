@testable import FocusBridgeCore
import Foundation
import XCTest

/// Core's string helpers on the standard library against Foundation's string API: the same
/// results.
final class TextHelpersTests: XCTestCase {
    func testZeroPaddedIsFormatsPercentZeroD() {
        for value in [0, 7, 42, 123, 2026, 99_999, -5, -123] {
            for width in [2, 3, 4] {
                XCTAssertEqual(String.zeroPadded(value, width: width), String(format: "%0\(width)d", value))
            }
        }
    }

    func testTrimmingBlanksIsTrimmingWhitespaces() {
        for text in ["", " ", "  a b  ", "\tname=x\t", "\u{A0}x\u{3000}", "\u{2003}y\u{200A} ", "a\n", "\n a \r", "é ", " 😀 ", "\u{FEFF}z"] {
            XCTAssertEqual(text.trimmingBlanks(), text.trimmingCharacters(in: .whitespaces), text.debugDescription)
            XCTAssertEqual(Substring(text).trimmingBlanks(), text.trimmingCharacters(in: .whitespaces))
        }
    }

    func testReplacingIsReplacingOccurrences() {
        for (text, target, replacement) in [("org\\x2dgnome\\x2dx", "\\x2d", "-"), ("it's 'quoted'", "'", "'\\''"), ("", "a", "b"), ("aaa", "aa", "b")] {
            XCTAssertEqual(String(text.replacing(target, with: replacement)),
                           text.replacingOccurrences(of: target, with: replacement))
        }
    }

    func testEscapingControlCharactersWritesEachOneOut() {
        XCTAssertEqual("\u{1B}]0;title\u{07}".escapingControlCharacters, "\\e]0;title\\x07")
        XCTAssertEqual("a\rb\nc\td".escapingControlCharacters, "a\\rb\\nc\\td")
        XCTAssertEqual("\u{00}\u{1F}\u{7F}".escapingControlCharacters, "\\x00\\x1f\\x7f")
        XCTAssertEqual("one\u{1B}\ntwo\r\n".escapingControlCharactersKeepingLines, "one\\e\ntwo\\r\n",
                       "the line breaks of a message of several lines stay")
        // C1 controls (CSI is U+009B), not the letters around them that share their lead byte
        XCTAssertEqual("\u{9B}2J \u{80}\u{9F}".escapingControlCharacters, "\\x9b2J \\x80\\x9f")
        XCTAssertEqual("\u{A0}é€😀".escapingControlCharacters, "\u{A0}é€😀")
    }

    func testEscapingLeavesTextWithoutControlsAsItIs() {
        for text in ["", "Mail", "C:\\path\\e", "Ünïcödé ¢ 𝄞", String(repeating: "x", count: 1000)] {
            XCTAssertEqual(text.escapingControlCharacters, text)
        }
        XCTAssertEqual(Substring("a\u{1B}b").escapingControlCharacters, "a\\eb")
    }

    func testEscapedTextHoldsNoControlCharacter() {
        var all = ""
        for value in 0...0x2FF { all.unicodeScalars.append(Unicode.Scalar(value)!) }
        let escaped = all.escapingControlCharacters
        XCTAssertFalse(escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        XCTAssertFalse(escaped.contains("\n"))
    }
}
