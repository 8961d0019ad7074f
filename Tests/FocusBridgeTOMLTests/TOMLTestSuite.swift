#if canImport(FocusBridgeTOML)
import FocusBridgeTOML
#endif
import Foundation

/// Runs the toml-test corpus (https://github.com/toml-lang/toml-test) against `TOMLParser`:
/// every valid file must decode to its JSON, every invalid one must be refused with a position.
struct TOMLTestSuite {
    struct Result {
        var passed: [String] = []
        var failed: [(file: String, why: String)] = []
    }

    /// The corpus folder: `files-toml-1.0.0` and the `valid/` and `invalid/` trees.
    let root: URL

    /// The files of the TOML 1.0 list, without their extension.
    func cases() throws -> [String] {
        let list = try String(contentsOf: root.appendingPathComponent("files-toml-1.0.0"), encoding: .utf8)
        return list.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }
    }

    func run() throws -> Result {
        var result = Result()
        for name in try cases() {
            if let why = check(name) {
                result.failed.append((name, why))
            } else {
                result.passed.append(name)
            }
        }
        return result
    }

    /// Nil when the file behaves as the corpus says, else why not.
    func check(_ name: String) -> String? {
        guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(name + ".toml").path) else {
            return "cannot read the file"
        }
        let bytes = [UInt8](data)
        if name.hasPrefix("invalid/") {
            do {
                let table = try TOMLParser.parse(bytes: bytes)
                return "accepted: \(Self.json(.table(table)))"
            } catch {
                let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
                guard (1...lines).contains(error.position.line), error.position.column >= 1 else {
                    return "refused at an impossible position \(error)"
                }
                return nil
            }
        }
        let table: TOMLTable
        do {
            table = try TOMLParser.parse(bytes: bytes)
        } catch {
            return "refused: \(error)"
        }
        guard let expectedData = FileManager.default.contents(atPath: root.appendingPathComponent(name + ".json").path),
              let expected = try? JSONSerialization.jsonObject(with: expectedData, options: [.fragmentsAllowed]) else {
            return "cannot read the expected JSON"
        }
        return Self.difference(.table(table), expected, at: "")
    }

    /// Where `value` differs from toml-test's tagged JSON `expected`, or nil.
    static func difference(_ value: TOMLValue, _ expected: Any, at path: String) -> String? {
        switch value {
        case .table(let table):
            guard let object = expected as? [String: Any] else { return "\(path): a table, expected \(expected)" }
            guard Set(object.keys) == Set(table.keys) else {
                return "\(path): keys \(table.keys.sorted()), expected \(object.keys.sorted())"
            }
            for entry in table.entries {
                if let difference = difference(entry.value, object[entry.key]!, at: path + "." + entry.key) { return difference }
            }
            return nil
        case .array(let array):
            guard let list = expected as? [Any] else { return "\(path): an array, expected \(expected)" }
            guard list.count == array.count else { return "\(path): \(array.count) elements, expected \(list.count)" }
            for (offset, element) in array.elements.enumerated() {
                if let difference = difference(element.value, list[offset], at: path + "[\(offset)]") { return difference }
            }
            return nil
        default:
            guard let tagged = expected as? [String: Any], let type = tagged["type"] as? String,
                  let text = tagged["value"] as? String else {
                return "\(path): \(value), expected \(expected)"
            }
            let (actualType, actualText) = tag(value)
            guard type == actualType else { return "\(path): \(actualType) \(actualText), expected \(type) \(text)" }
            let same: Bool
            switch value {
            case .integer(let number): same = Int64(text) == number
            case .float(let number):
                switch text {
                case "nan", "+nan", "-nan": same = number.isNaN
                case "inf", "+inf": same = number == .infinity
                case "-inf": same = number == -.infinity
                default: same = Double(text).map { $0 == number } ?? false
                }
            case .offsetDateTime, .localDateTime, .localDate, .localTime:
                same = normalisedDateTime(text) == normalisedDateTime(actualText)
            default: same = text == actualText
            }
            return same ? nil : "\(path): \(actualType) \(actualText.debugDescription), expected \(text.debugDescription)"
        }
    }

    /// toml-test's type name and text of a scalar.
    static func tag(_ value: TOMLValue) -> (String, String) {
        switch value {
        case .string(let text): ("string", text)
        case .integer(let number): ("integer", String(number))
        case .float(let number): ("float", number.isNaN ? "nan" : number.isInfinite ? (number < 0 ? "-inf" : "inf") : "\(number)")
        case .boolean(let flag): ("bool", flag ? "true" : "false")
        case .offsetDateTime(let dateTime): ("datetime", dateTime.description)
        case .localDateTime(let dateTime): ("datetime-local", dateTime.description)
        case .localDate(let date): ("date-local", date.description)
        case .localTime(let time): ("time-local", time.description)
        case .array, .table: ("", "")
        }
    }

    /// RFC 3339 text compared as toml-test compares date-times: `T` and `Z` in capitals, a space
    /// separator as `T`, the fraction without trailing zeros, `+00:00` as `Z`.
    static func normalisedDateTime(_ text: String) -> String {
        var text = text.uppercased()
        if text.count > 10, text[text.index(text.startIndex, offsetBy: 10)] == " " {
            text = String(text.prefix(10)) + "T" + String(text.dropFirst(11))
        }
        if text.hasSuffix("+00:00") || text.hasSuffix("-00:00") { text = String(text.dropLast(6)) + "Z" }
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...].prefix { $0.isNumber }
            var fraction = String(digits)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text = String(text[..<dot]) + (fraction.isEmpty ? "" : "." + fraction) + String(text[digits.endIndex...])
        }
        return text
    }

    /// The value as toml-test's tagged JSON, for messages.
    static func json(_ value: TOMLValue) -> String {
        switch value {
        case .table(let table):
            "{" + table.entries.map { "\($0.key.debugDescription): \(json($0.value))" }.joined(separator: ", ") + "}"
        case .array(let array):
            "[" + array.values.map(json).joined(separator: ", ") + "]"
        default:
            "{\"type\": \"\(tag(value).0)\", \"value\": \(tag(value).1.debugDescription)}"
        }
    }
}
