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
}
