/// A TOML 1.0 reader (https://toml.io/en/v1.0.0): text in, a `TOMLTable` out, or the first
/// problem with its line and column. It reads the UTF-8 bytes once, front to back, and never
/// traps on any input: nesting deeper than `maxDepth` is refused, so no input can exhaust the
/// stack.
public enum TOMLParser {
    /// Tables and arrays nested deeper than this are refused (a real file nests a few levels).
    public static let maxDepth = 100

    /// Parses `text`.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 bytes; bytes that are not UTF-8 are refused with their position.
    public static func parse(bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        var reader = Reader(bytes: bytes)
        return try reader.document()
    }
}

// MARK: - Tables as they are built

/// A table while the file is read: it may still gain keys (unless it is an inline table or a
/// value). Turned into a `TOMLTable` at the end.
private final class TableBuilder {
    enum Kind {
        /// The root, or an element of an array of tables.
        case root
        /// Named in the path of a header (`a` in `[a.b]`) or by dotted keys that descend into it
        /// from a header, and not yet defined: a `[a]` header may still define it.
        case implicit
        /// Defined by its own `[header]` or `[[header]]`.
        case header
        /// Defined by dotted keys (`a.b = 1` defines `a`).
        case dotted
        /// An inline table's own builder, while it is read.
        case inline
    }

    final class Slot {
        let key: String
        var keyPosition: TOMLPosition
        var valuePosition: TOMLPosition
        var content: Content

        init(key: String, keyPosition: TOMLPosition, valuePosition: TOMLPosition, content: Content) {
            self.key = key
            self.keyPosition = keyPosition
            self.valuePosition = valuePosition
            self.content = content
        }
    }

    enum Content {
        /// A finished value: a scalar, an array written out, an inline table. Nothing can be added to it.
        case value(TOMLValue)
        case table(TableBuilder)
        /// `[[name]]`: the tables so far.
        case tables(TableList)
    }

    /// The tables of an array of tables, appended to in place.
    final class TableList {
        var tables: [TableBuilder]

        init(_ first: TableBuilder) { tables = [first] }
    }

    var kind: Kind
    var position: TOMLPosition
    let depth: Int
    private(set) var slots: [Slot] = []
    private var index: [String: Int] = [:]

    init(kind: Kind, position: TOMLPosition, depth: Int) {
        self.kind = kind
        self.position = position
        self.depth = depth
    }

    func slot(_ key: String) -> Slot? { index[key].map { slots[$0] } }

    func add(_ slot: Slot) {
        index[slot.key] = slots.count
        slots.append(slot)
    }

    func build() -> TOMLTable {
        TOMLTable(position: position, entries: slots.map { slot in
            let value: TOMLValue
            switch slot.content {
            case .value(let finished): value = finished
            case .table(let table): value = .table(table.build())
            case .tables(let list):
                value = .array(TOMLArray(position: slot.valuePosition,
                                         elements: list.tables.map { .init(value: .table($0.build()), position: $0.position) }))
            }
            return TOMLTable.Entry(key: slot.key, keyPosition: slot.keyPosition, value: value, valuePosition: slot.valuePosition)
        })
    }
}

/// One part of a (dotted) key and where it is written.
private struct KeyPart {
    let name: String
    let position: TOMLPosition
}

private extension TOMLValue {
    /// For "already … here" messages: the kind of thing a key holds.
    var shortName: String {
        switch self {
        case .table: "an inline table"
        case .array: "an array"
        default: typeName
        }
    }
}

// MARK: - The reader

private struct Reader {
    let bytes: [UInt8]
    var index = 0
    /// The line of `index`, and where that line starts.
    var line = 1
    var lineStart = 0
    /// A column already counted on this line, so that positions along a long line cost no more
    /// than reading it.
    var countedOffset = 0
    var countedColumn = 1

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Positions and errors

    /// The position of `offset`, on the current line.
    mutating func position(at offset: Int) -> TOMLPosition {
        if offset < countedOffset || countedOffset < lineStart {
            countedOffset = lineStart
            countedColumn = 1
        }
        var column = countedColumn
        var scan = countedOffset
        while scan < offset && scan < bytes.count {
            if bytes[scan] & 0xC0 != 0x80 { column += 1 }
            scan += 1
        }
        countedOffset = scan
        countedColumn = column
        return TOMLPosition(line: line, column: column)
    }

    mutating func here() -> TOMLPosition { position(at: index) }

    mutating func fail(_ message: String) -> TOMLError {
        TOMLError(position: here(), message: message)
    }

    func fail(_ message: String, at position: TOMLPosition) -> TOMLError {
        TOMLError(position: position, message: message)
    }

    /// The byte at `index + ahead`, nil past the end.
    func peek(_ ahead: Int = 0) -> UInt8? {
        index + ahead < bytes.count ? bytes[index + ahead] : nil
    }

    var atEnd: Bool { index >= bytes.count }

    /// How a byte is named in a message: the character, or its code for a control character.
    func describe(_ byte: UInt8?) -> String {
        guard let byte else { return "the end of the file" }
        switch byte {
        case 0x0A: return "the end of the line"
        case 0x0D: return "a carriage return"
        case 0x09: return "a tab"
        case 0x20: return "a space"
        case 0x00..<0x20, 0x7F: return "the control character U+\(hex(Int(byte), 4))"
        case 0x80...: return "\"\(scalarText(at: index))\""
        default: return "\"\(Character(Unicode.Scalar(byte)))\""
        }
    }

    /// The character that starts at `offset` (the bytes are valid UTF-8 by then).
    func scalarText(at offset: Int) -> String {
        var end = offset + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    // MARK: The document

    mutating func document() throws(TOMLError) -> TOMLTable {
        try checkUTF8()
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            countedOffset = 3
        }
        let root = TableBuilder(kind: .root, position: TOMLPosition(line: 1, column: 1), depth: 0)
        var current = root
        while true {
            skipSpaces()
            guard let byte = peek() else { break }
            switch byte {
            case .newline, .carriageReturn:
                try newline()
                continue
            case .hash:
                try comment()
            case .openBracket:
                current = try header(root)
            default:
                try keyValue(into: current)
            }
            try endOfLine()
        }
        return root.build()
    }

    /// Refuses bytes that are not UTF-8 (overlong forms, surrogates and values past U+10FFFF too).
    mutating func checkUTF8() throws(TOMLError) {
        var offset = 0
        while offset < bytes.count {
            let lead = bytes[offset]
            if lead < 0x80 {
                if lead == .newline {
                    line += 1
                    lineStart = offset + 1
                }
                offset += 1
                continue
            }
            var length = 0
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: length = 0
            }
            var valid = length > 0 && offset + length <= bytes.count
            if valid {
                for k in 1..<length {
                    let byte = bytes[offset + k]
                    if k == 1 ? !(low...high).contains(byte) : !(0x80...0xBF).contains(byte) {
                        valid = false
                        break
                    }
                }
            }
            guard valid else {
                let position = position(at: offset)
                throw fail("the file is not UTF-8 text (byte 0x\(hex(Int(bytes[offset]), 2)) here)", at: position)
            }
            offset += length
        }
        line = 1
        lineStart = 0
        countedOffset = 0
        countedColumn = 1
    }

    // MARK: Layout: spaces, newlines, comments

    mutating func skipSpaces() {
        while let byte = peek(), byte == .space || byte == .tab { index += 1 }
    }

    /// Reads LF or CR LF at `index`.
    mutating func newline() throws(TOMLError) {
        if peek() == .carriageReturn {
            guard peek(1) == .newline else { throw fail("a carriage return must be followed by a line feed (CR LF)") }
            index += 1
        }
        index += 1
        line += 1
        lineStart = index
    }

    /// Reads a comment from its `#` to the end of the line (not the line end).
    mutating func comment() throws(TOMLError) {
        index += 1
        while let byte = peek(), byte != .newline {
            if byte == .carriageReturn && peek(1) == .newline { return }
            if byte.isControl && byte != .tab {
                throw fail("\(describe(byte)) is not allowed in a comment")
            }
            index += 1
        }
    }

    /// After a key/value pair or a header: spaces, a comment, then the end of the line or file.
    mutating func endOfLine() throws(TOMLError) {
        skipSpaces()
        if peek() == .hash { try comment() }
        guard let byte = peek() else { return }
        guard byte == .newline || byte == .carriageReturn else {
            throw fail("expected the end of the line, found \(describe(byte))")
        }
        try newline()
    }

    /// Spaces, newlines and comments, as between the values of an array.
    mutating func skipBlank() throws(TOMLError) {
        while let byte = peek() {
            switch byte {
            case .space, .tab: index += 1
            case .newline, .carriageReturn: try newline()
            case .hash: try comment()
            default: return
            }
        }
    }

    // MARK: Headers

    /// `[a.b]` or `[[a.b]]` at `index`: the table the following keys go to.
    mutating func header(_ root: TableBuilder) throws(TOMLError) -> TableBuilder {
        let start = here()
        let isArray = peek(1) == .openBracket
        index += isArray ? 2 : 1
        let path = try key()
        guard peek() == .closeBracket else {
            throw fail("expected \(isArray ? "]]" : "]") to end the table header, found \(describe(peek()))")
        }
        if isArray {
            guard peek(1) == .closeBracket else {
                index += 1
                throw fail("expected ]] to end the array-of-tables header, found \(describe(peek()))")
            }
            index += 2
        } else {
            index += 1
        }
        var table = root
        for part in path.dropLast() {
            table = try descendForHeader(table, part)
        }
        let last = path[path.count - 1]
        let name = path.map(\.name.quotedKey).joined(separator: ".")
        if let slot = table.slot(last.name) {
            switch slot.content {
            case .table(let existing) where !isArray:
                guard existing.kind == .implicit else {
                    let how = existing.kind == .dotted ? "by dotted keys" : "by a header"
                    throw fail("the table [\(name)] is already defined \(how) (line \(slot.keyPosition.line))", at: last.position)
                }
                existing.kind = .header
                existing.position = start
                slot.keyPosition = last.position
                slot.valuePosition = start
                return existing
            case .tables(let list) where isArray:
                let element = try newTable(.header, start, under: table, depth: table.depth + 2)
                list.tables.append(element)
                return element
            case .tables:
                throw fail("[\(name)] is an array of tables (line \(slot.keyPosition.line)); write [[\(name)]] to add one",
                           at: last.position)
            case .table:
                throw fail("[\(name)] is already a table (line \(slot.keyPosition.line)), not an array of tables",
                           at: last.position)
            case .value(let value):
                throw fail("`\(last.name)` is already \(value.shortName) (line \(slot.keyPosition.line)), not a table",
                           at: last.position)
            }
        }
        if isArray {
            let element = try newTable(.header, start, under: table, depth: table.depth + 2)
            table.add(.init(key: last.name, keyPosition: last.position, valuePosition: start, content: .tables(TableBuilder.TableList(element))))
            return element
        }
        let created = try newTable(.header, start, under: table, depth: table.depth + 1)
        table.add(.init(key: last.name, keyPosition: last.position, valuePosition: start, content: .table(created)))
        return created
    }

    /// The table `part` names inside `table` on the way to a header's table; created (implied)
    /// when missing. Through an array of tables, its last table.
    mutating func descendForHeader(_ table: TableBuilder, _ part: KeyPart) throws(TOMLError) -> TableBuilder {
        if let slot = table.slot(part.name) {
            switch slot.content {
            case .table(let existing): return existing
            case .tables(let list): return list.tables[list.tables.count - 1]
            case .value(let value):
                throw fail("`\(part.name)` is already \(value.shortName) (line \(slot.keyPosition.line)); "
                           + "tables cannot be added to it", at: part.position)
            }
        }
        let created = try newTable(.implicit, part.position, under: table, depth: table.depth + 1)
        table.add(.init(key: part.name, keyPosition: part.position, valuePosition: part.position, content: .table(created)))
        return created
    }

    mutating func newTable(_ kind: TableBuilder.Kind, _ position: TOMLPosition, under parent: TableBuilder,
                           depth: Int) throws(TOMLError) -> TableBuilder {
        guard depth <= TOMLParser.maxDepth else {
            throw fail("tables nested more than \(TOMLParser.maxDepth) deep", at: position)
        }
        return TableBuilder(kind: kind, position: position, depth: depth)
    }

    // MARK: Keys and values

    /// A key: bare, quoted or literal parts joined by dots, spaces around each part.
    mutating func key() throws(TOMLError) -> [KeyPart] {
        var parts: [KeyPart] = []
        while true {
            skipSpaces()
            let start = here()
            guard let byte = peek() else { throw fail("expected a key, found the end of the file") }
            let name: String
            switch byte {
            case .quote:
                if peek(1) == .quote && peek(2) == .quote { throw fail("a key cannot be a multi-line string") }
                name = try basicString()
            case .apostrophe:
                if peek(1) == .apostrophe && peek(2) == .apostrophe { throw fail("a key cannot be a multi-line string") }
                name = try literalString()
            default:
                let first = index
                while let byte = peek(), byte.isBareKey { index += 1 }
                guard index > first else {
                    throw fail("expected a key (A-Z a-z 0-9 _ - or a quoted string), found \(describe(byte))")
                }
                name = String(decoding: bytes[first..<index], as: UTF8.self)
            }
            parts.append(KeyPart(name: name, position: start))
            skipSpaces()
            guard peek() == .dot else { return parts }
            index += 1
        }
    }

    /// `key = value` at `index`, put into `table`.
    mutating func keyValue(into table: TableBuilder) throws(TOMLError) {
        let path = try key()
        guard peek() == .equals else {
            throw fail("expected = after the key, found \(describe(peek()))")
        }
        index += 1
        skipSpaces()
        try assign(path, in: table)
    }

    /// Reads the value at `index` and puts it at the dotted `path` in `table`.
    mutating func assign(_ path: [KeyPart], in table: TableBuilder) throws(TOMLError) {
        var target = table
        for part in path.dropLast() {
            if let slot = target.slot(part.name) {
                switch slot.content {
                case .table(let existing) where existing.kind == .dotted || existing.kind == .implicit:
                    existing.kind = .dotted
                    target = existing
                    continue
                case .table:
                    throw fail("the table `\(part.name)` is defined by a header (line \(slot.keyPosition.line)); "
                               + "dotted keys cannot add to it", at: part.position)
                case .tables:
                    throw fail("`\(part.name)` is an array of tables (line \(slot.keyPosition.line)); dotted keys cannot add to it",
                               at: part.position)
                case .value(let value):
                    throw fail("`\(part.name)` is already \(value.shortName) (line \(slot.keyPosition.line)); "
                               + "keys cannot be added to it", at: part.position)
                }
            }
            let created = try newTable(.dotted, part.position, under: target, depth: target.depth + 1)
            target.add(.init(key: part.name, keyPosition: part.position, valuePosition: part.position, content: .table(created)))
            target = created
        }
        let last = path[path.count - 1]
        if let slot = target.slot(last.name) {
            throw fail("`\(last.name)` is already defined (line \(slot.keyPosition.line))", at: last.position)
        }
        let start = here()
        let value = try value(depth: target.depth + 1)
        target.add(.init(key: last.name, keyPosition: last.position, valuePosition: start, content: .value(value)))
    }

    /// The value at `index`, at nesting `depth`.
    mutating func value(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth <= TOMLParser.maxDepth else { throw fail("values nested more than \(TOMLParser.maxDepth) deep") }
        guard let byte = peek() else { throw fail("expected a value, found the end of the file") }
        switch byte {
        case .quote:
            if peek(1) == .quote && peek(2) == .quote { return .string(try multiLineBasicString()) }
            return .string(try basicString())
        case .apostrophe:
            if peek(1) == .apostrophe && peek(2) == .apostrophe { return .string(try multiLineLiteralString()) }
            return .string(try literalString())
        case .openBracket:
            return .array(try array(depth: depth))
        case .openBrace:
            return .table(try inlineTable(depth: depth))
        case UInt8(ascii: "t"):
            return try word("true", .boolean(true))
        case UInt8(ascii: "f"):
            return try word("false", .boolean(false))
        case UInt8(ascii: "i"):
            return try word("inf", .float(.infinity))
        case UInt8(ascii: "n"):
            return try word("nan", .float(.nan))
        case .plus, .minus, UInt8(ascii: "0")...UInt8(ascii: "9"):
            if byte.isDigit, let next = peek(1), next.isDigit {
                if peek(2) == .colon { return .localTime(try time()) }
                if let a = peek(2), a.isDigit, let b = peek(3), b.isDigit, peek(4) == .minus { return try dateOrDateTime() }
            }
            return try number()
        case .newline, .carriageReturn, .hash:
            throw fail("expected a value after =, found \(describe(byte))")
        default:
            throw fail("expected a value (a string, number, true, false, date, time, array or inline table), found \(describe(byte))")
        }
    }

    mutating func word(_ text: String, _ value: TOMLValue) throws(TOMLError) -> TOMLValue {
        for (offset, expected) in text.utf8.enumerated() where peek(offset) != expected {
            throw fail("expected a value (a string, number, true, false, date, time, array or inline table)")
        }
        index += text.utf8.count
        return value
    }

    // MARK: Arrays and inline tables

    mutating func array(depth: Int) throws(TOMLError) -> TOMLArray {
        let start = here()
        index += 1
        var elements: [TOMLArray.Element] = []
        while true {
            try skipBlank()
            if peek() == .closeBracket { break }
            let position = here()
            elements.append(.init(value: try value(depth: depth + 1), position: position))
            try skipBlank()
            if peek() == .comma {
                index += 1
                continue
            }
            guard peek() == .closeBracket else {
                if atEnd { throw fail("the array that starts at \(start) is not closed with ]", at: start) }
                throw fail("expected , or ] in the array, found \(describe(peek()))")
            }
            break
        }
        index += 1
        return TOMLArray(position: start, elements: elements)
    }

    mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLTable {
        let start = here()
        index += 1
        let table = TableBuilder(kind: .inline, position: start, depth: depth)
        skipSpaces()
        if peek() == .closeBrace {
            index += 1
            return table.build()
        }
        while true {
            skipSpaces()
            if peek() == .closeBrace { throw fail("no comma may follow the last key/value pair of an inline table") }
            try inlineLineCheck(start)
            let path = try key()
            guard peek() == .equals else { throw fail("expected = after the key, found \(describe(peek()))") }
            index += 1
            skipSpaces()
            try inlineLineCheck(start)
            try assign(path, in: table)
            skipSpaces()
            try inlineLineCheck(start)
            if peek() == .comma {
                index += 1
                continue
            }
            guard peek() == .closeBrace else { throw fail("expected , or } in the inline table, found \(describe(peek()))") }
            index += 1
            return table.build()
        }
    }

    /// An inline table stays on one line (TOML 1.0).
    mutating func inlineLineCheck(_ start: TOMLPosition) throws(TOMLError) {
        switch peek() {
        case nil: throw fail("the inline table that starts at \(start) is not closed with }", at: start)
        case .newline?, .carriageReturn?, .hash?:
            throw fail("an inline table must be written on one line, and closed with } there")
        default: return
        }
    }

    // MARK: Strings

    /// `"…"` at `index`.
    mutating func basicString() throws(TOMLError) -> String {
        let start = here()
        index += 1
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else { throw fail("the string that starts at \(start) is not closed with \"", at: start) }
            switch byte {
            case .quote:
                index += 1
                return String(decoding: text, as: UTF8.self)
            case .backslash:
                try escape(into: &text)
            case .newline, .carriageReturn:
                throw fail("the string is not closed with \" before the end of the line (use \"\"\" for text over several lines)")
            default:
                if byte.isControl && byte != .tab { throw fail("\(describe(byte)) is not allowed in a string; write it as an escape") }
                text.append(byte)
                index += 1
            }
        }
    }

    /// `"""…"""` at `index`.
    mutating func multiLineBasicString() throws(TOMLError) -> String {
        let start = here()
        index += 3
        if peek() == .newline || (peek() == .carriageReturn && peek(1) == .newline) { try newline() }
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else { throw fail("the string that starts at \(start) is not closed with \"\"\"", at: start) }
            switch byte {
            case .quote:
                if let closed = try closing(.quote, into: &text) { return closed }
            case .backslash:
                // A backslash at the end of a line takes the line end and the blanks after it.
                var ahead = 1
                while let next = peek(ahead), next == .space || next == .tab { ahead += 1 }
                if peek(ahead) == .newline || (peek(ahead) == .carriageReturn && peek(ahead + 1) == .newline) {
                    index += ahead
                    while let next = peek() {
                        if next == .space || next == .tab { index += 1 } else if next == .newline || next == .carriageReturn {
                            try newline()
                        } else { break }
                    }
                } else {
                    try escape(into: &text)
                }
            case .newline, .carriageReturn:
                try newline()
                text.append(.newline)
            default:
                if byte.isControl && byte != .tab { throw fail("\(describe(byte)) is not allowed in a string; write it as an escape") }
                text.append(byte)
                index += 1
            }
        }
    }

    /// `'…'` at `index`.
    mutating func literalString() throws(TOMLError) -> String {
        let start = here()
        index += 1
        let first = index
        while true {
            guard let byte = peek() else { throw fail("the string that starts at \(start) is not closed with '", at: start) }
            if byte == .apostrophe { break }
            if byte == .newline || byte == .carriageReturn {
                throw fail("the string is not closed with ' before the end of the line (use ''' for text over several lines)")
            }
            if byte.isControl && byte != .tab { throw fail("\(describe(byte)) is not allowed in a literal string") }
            index += 1
        }
        let text = String(decoding: bytes[first..<index], as: UTF8.self)
        index += 1
        return text
    }

    /// `'''…'''` at `index`.
    mutating func multiLineLiteralString() throws(TOMLError) -> String {
        let start = here()
        index += 3
        if peek() == .newline || (peek() == .carriageReturn && peek(1) == .newline) { try newline() }
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else { throw fail("the string that starts at \(start) is not closed with '''", at: start) }
            switch byte {
            case .apostrophe:
                if let closed = try closing(.apostrophe, into: &text) { return closed }
            case .newline, .carriageReturn:
                try newline()
                text.append(.newline)
            default:
                if byte.isControl && byte != .tab { throw fail("\(describe(byte)) is not allowed in a literal string") }
                text.append(byte)
                index += 1
            }
        }
    }

    /// At a quote inside a multi-line string: fewer than three are text; three to five close the
    /// string (the first one or two then belong to the text); more are an error.
    mutating func closing(_ quote: UInt8, into text: inout [UInt8]) throws(TOMLError) -> String? {
        var run = 0
        while peek(run) == quote { run += 1 }
        if run < 3 {
            text.append(contentsOf: repeatElement(quote, count: run))
            index += run
            return nil
        }
        guard run <= 5 else {
            index += 5
            throw fail("too many quotes: a multi-line string closes with three, after at most two of its own")
        }
        text.append(contentsOf: repeatElement(quote, count: run - 3))
        index += run
        return String(decoding: text, as: UTF8.self)
    }

    /// A backslash escape at `index` in a basic string.
    mutating func escape(into text: inout [UInt8]) throws(TOMLError) {
        guard let code = peek(1) else { throw fail("the string ends in a lone backslash") }
        let simple: UInt8?
        switch code {
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "r"): simple = 0x0D
        case .quote: simple = .quote
        case .backslash: simple = .backslash
        case UInt8(ascii: "u"), UInt8(ascii: "U"): simple = nil
        default:
            throw fail("unknown escape \\\(scalarText(at: index + 1)) (TOML knows \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)")
        }
        if let simple {
            text.append(simple)
            index += 2
            return
        }
        let count = code == UInt8(ascii: "u") ? 4 : 8
        var value: UInt32 = 0
        for offset in 0..<count {
            guard let digit = peek(2 + offset)?.hexValue else {
                throw fail("\\\(Character(Unicode.Scalar(code))) takes exactly \(count) hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw fail("\\\(Character(Unicode.Scalar(code)))\(hex(Int(value), count)) is not a Unicode scalar value")
        }
        text.append(contentsOf: Array(String(scalar).utf8))
        index += 2 + count
    }

    // MARK: Numbers

    /// An integer or a float at `index`.
    mutating func number() throws(TOMLError) -> TOMLValue {
        let start = index
        while let byte = peek(), byte.isNumberPart { index += 1 }
        let token = Array(bytes[start..<index])
        /// Fails at the `offset`-th byte of the token.
        func bad(_ offset: Int, _ message: String) -> TOMLError {
            TOMLError(position: position(at: start + offset), message: message)
        }
        var cursor = 0
        var negative = false
        if token.first == .plus || token.first == .minus {
            negative = token.first == .minus
            cursor = 1
        }
        let rest = Array(token[cursor...])
        if rest == Array("inf".utf8) { return .float(negative ? -.infinity : .infinity) }
        if rest == Array("nan".utf8) { return .float(.nan) }
        if rest.count >= 2, rest[0] == UInt8(ascii: "0"), let radix = Self.radix(rest[1]) {
            guard cursor == 0 else { throw bad(0, "a hexadecimal, octal or binary integer takes no sign") }
            let digits = try digitRun(token, from: cursor + 2, radix: radix, at: start, what: "digit")
            guard digits.end == token.count else {
                throw bad(digits.end, "\(describe(token[digits.end])) is not a digit of a base-\(radix) integer")
            }
            guard let value = Int64(String(decoding: digits.text, as: UTF8.self), radix: radix) else {
                throw bad(0, "the integer does not fit in 64 bits")
            }
            return .integer(value)
        }
        // Decimal: integer part, then a fraction and/or an exponent for a float.
        guard cursor < token.count, token[cursor].isDigit else {
            throw bad(cursor, "expected a digit, found \(describe(cursor < token.count ? token[cursor] : peek()))")
        }
        let whole = try digitRun(token, from: cursor, radix: 10, at: start, what: "digit")
        if whole.text.count > 1 && whole.text[0] == UInt8(ascii: "0") {
            throw bad(cursor, "a number cannot start with 0 (leading zeros are not allowed)")
        }
        var end = whole.end
        var float = whole.text
        var isFloat = false
        if end < token.count && token[end] == .dot {
            guard end + 1 < token.count, token[end + 1].isDigit else {
                throw bad(end + 1, "expected a digit after the decimal point")
            }
            let fraction = try digitRun(token, from: end + 1, radix: 10, at: start, what: "digit")
            float += [.dot] + fraction.text
            end = fraction.end
            isFloat = true
        }
        if end < token.count && (token[end] == UInt8(ascii: "e") || token[end] == UInt8(ascii: "E")) {
            var exponentStart = end + 1
            float.append(UInt8(ascii: "e"))
            if exponentStart < token.count && (token[exponentStart] == .plus || token[exponentStart] == .minus) {
                float.append(token[exponentStart])
                exponentStart += 1
            }
            guard exponentStart < token.count, token[exponentStart].isDigit else {
                throw bad(exponentStart, "expected the digits of the exponent")
            }
            let exponent = try digitRun(token, from: exponentStart, radix: 10, at: start, what: "digit")
            float += exponent.text
            end = exponent.end
            isFloat = true
        }
        guard end == token.count else {
            throw bad(end, "\(describe(token[end])) does not belong in a number")
        }
        if isFloat {
            guard let value = Double(String(decoding: float, as: UTF8.self)), value.isFinite else {
                throw bad(0, "the float is out of range")
            }
            return .float(negative ? -value : value)
        }
        guard let value = Int64((negative ? "-" : "") + String(decoding: whole.text, as: UTF8.self)) else {
            throw bad(0, "the integer does not fit in 64 bits (−9223372036854775808 to 9223372036854775807)")
        }
        return .integer(value)
    }

    static func radix(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "x"): 16
        case UInt8(ascii: "o"): 8
        case UInt8(ascii: "b"): 2
        default: nil
        }
    }

    /// Digits of `radix` from `from`, underscores only between two digits: the digits without
    /// the underscores, and where they end.
    mutating func digitRun(_ token: [UInt8], from: Int, radix: Int, at start: Int,
                           what: String) throws(TOMLError) -> (text: [UInt8], end: Int) {
        var text: [UInt8] = []
        var offset = from
        while offset < token.count {
            let byte = token[offset]
            if byte == .underscore {
                guard !text.isEmpty, offset + 1 < token.count, token[offset + 1].digitValue(radix) != nil else {
                    throw TOMLError(position: position(at: start + offset), message: "an underscore in a number must stand between two digits")
                }
                offset += 1
                continue
            }
            guard byte.digitValue(radix) != nil else { break }
            text.append(byte)
            offset += 1
        }
        guard !text.isEmpty else {
            throw TOMLError(position: position(at: start + offset), message: "expected a \(what)")
        }
        return (text, offset)
    }

    // MARK: Dates and times

    /// `YYYY-MM-DD`, then maybe `T`/space and a time, then maybe an offset.
    mutating func dateOrDateTime() throws(TOMLError) -> TOMLValue {
        let start = here()
        let year = try fixedDigits(4, "the year")
        try expect(.minus, "- between the year and the month")
        let month = try fixedDigits(2, "the month (two digits)")
        try expect(.minus, "- between the month and the day")
        let day = try fixedDigits(2, "the day (two digits)")
        guard let date = TOMLLocalDate(year: year, month: month, day: day) else {
            throw fail("\(TOMLLocalDateDescription(year, month, day)) is not a date (month 01 to 12, a day that month has)", at: start)
        }
        switch peek() {
        case UInt8(ascii: "T"), UInt8(ascii: "t"):
            index += 1
        case .space where peek(1)?.isDigit == true:
            index += 1
        default:
            if let byte = peek(), byte.isBareKey || byte == .colon || byte == .dot {
                throw fail("\(describe(byte)) does not belong in a date")
            }
            return .localDate(date)
        }
        let time = try time()
        switch peek() {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
            return .offsetDateTime(TOMLOffsetDateTime(date: date, time: time, offsetMinutes: 0))
        case .plus, .minus:
            let negative = peek() == .minus
            index += 1
            let offsetStart = here()
            let hours = try fixedDigits(2, "the offset's hours (two digits)")
            try expect(.colon, ": between the offset's hours and minutes")
            let minutes = try fixedDigits(2, "the offset's minutes (two digits)")
            guard hours <= 23, minutes <= 59 else { throw fail("the offset must be from -23:59 to +23:59", at: offsetStart) }
            let offset = (hours * 60 + minutes) * (negative ? -1 : 1)
            return .offsetDateTime(TOMLOffsetDateTime(date: date, time: time, offsetMinutes: offset))
        default:
            return .localDateTime(TOMLLocalDateTime(date: date, time: time))
        }
    }

    /// `HH:MM:SS` with an optional fraction.
    mutating func time() throws(TOMLError) -> TOMLLocalTime {
        let start = here()
        let hour = try fixedDigits(2, "the hour (two digits)")
        try expect(.colon, ": between the hour and the minutes")
        let minute = try fixedDigits(2, "the minutes (two digits)")
        try expect(.colon, ": and the seconds (TOML 1.0 needs them: HH:MM:SS)")
        let second = try fixedDigits(2, "the seconds (two digits)")
        var nanosecond = 0
        if peek() == .dot {
            index += 1
            guard peek()?.isDigit == true else { throw fail("expected the digits of the fraction of a second") }
            var scale = 100_000_000
            while let byte = peek(), byte.isDigit {
                nanosecond += Int(byte - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
        }
        guard let time = TOMLLocalTime(hour: hour, minute: minute, second: second, nanosecond: nanosecond) else {
            throw fail("not a time of day (hours 00 to 23, minutes 00 to 59, seconds 00 to 60)", at: start)
        }
        return time
    }

    mutating func fixedDigits(_ count: Int, _ what: String) throws(TOMLError) -> Int {
        var value = 0
        for _ in 0..<count {
            guard let byte = peek(), byte.isDigit else { throw fail("expected \(what), found \(describe(peek()))") }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            index += 1
        }
        return value
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(TOMLError) {
        guard peek() == byte else { throw fail("expected \(what), found \(describe(peek()))") }
        index += 1
    }
}

private func TOMLLocalDateDescription(_ year: Int, _ month: Int, _ day: Int) -> String {
    func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
}

private func hex(_ value: Int, _ width: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}

private extension String {
    /// A key as a header would write it: bare when it can be, else quoted.
    var quotedKey: String {
        !isEmpty && utf8.allSatisfy(\.isBareKey) ? self : "\"" + self + "\""
    }
}

private extension UInt8 {
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let quote = UInt8(ascii: "\"")
    static let apostrophe = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
    static let hash = UInt8(ascii: "#")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let equals = UInt8(ascii: "=")
    static let comma = UInt8(ascii: ",")
    static let dot = UInt8(ascii: ".")
    static let colon = UInt8(ascii: ":")
    static let plus = UInt8(ascii: "+")
    static let minus = UInt8(ascii: "-")
    static let underscore = UInt8(ascii: "_")

    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    var isControl: Bool { self < 0x20 || self == 0x7F }

    var isBareKey: Bool {
        switch self {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), .underscore, .minus: true
        default: false
        }
    }

    /// What a number's token may hold (checked in detail afterwards).
    var isNumberPart: Bool { isBareKey || self == .plus || self == .dot }

    var hexValue: UInt8? { digitValue(16).map(UInt8.init) }

    func digitValue(_ radix: Int) -> Int? {
        let value: Int
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(self - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(self - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(self - UInt8(ascii: "A")) + 10
        default: return nil
        }
        return value < radix ? value : nil
    }
}
