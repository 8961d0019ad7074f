/// Reads a TZif file (RFC 8536: `/usr/share/zoneinfo/Europe/Berlin`) into `TimeZoneRules`:
/// version 1 (32-bit transition times) and versions 2 and later (the 64-bit block after it, and
/// the footer's POSIX rule for instants past the last transition). Leap-second records
/// (the `right/` zones) are skipped: FocusBridge counts POSIX seconds, as the system clock does.
///
/// Only bytes: reading the file is the caller's. Untrusted: every count is checked against the
/// bytes there are, a malformed file is an error, never a trap.
extension TimeZoneRules {
    public struct InvalidTZif: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The most bytes a TZif file may have here (the largest of tzdata is about 3 KiB).
    public static let maxTZifBytes = 1 << 20

    public init(tzif bytes: [UInt8], identifier: String) throws(InvalidTZif) {
        guard bytes.count <= Self.maxTZifBytes else { throw InvalidTZif(description: "larger than \(Self.maxTZifBytes) bytes") }
        var reader = TZifReader(bytes: bytes)
        let first = try reader.header()
        guard first.version >= UInt8(ascii: "2") else {
            let block = try reader.block(first, timeSize: 4)
            self.init(identifier: identifier, block: block, rule: nil)
            return
        }
        try reader.skip(first.blockSize(timeSize: 4))
        let second = try reader.header()
        let block = try reader.block(second, timeSize: 8)
        // The footer: "\n" TZ-string "\n"; an empty string says no rule.
        guard reader.next() == UInt8(ascii: "\n") else { throw InvalidTZif(description: "no footer after the data") }
        var footer: [UInt8] = []
        while true {
            guard let byte = reader.next() else { throw InvalidTZif(description: "a footer cut short") }
            if byte == UInt8(ascii: "\n") { break }
            footer.append(byte)
            guard footer.count <= 256 else { throw InvalidTZif(description: "a footer longer than 256 bytes") }
        }
        var rule: PosixTimeZone?
        if !footer.isEmpty {
            do { rule = try PosixTimeZone(String(decoding: footer, as: UTF8.self)) } catch {
                throw InvalidTZif(description: "its footer is not a TZ rule (\(error.description))")
            }
        }
        self.init(identifier: identifier, block: block, rule: rule)
    }

    private init(identifier: String, block: TZifReader.Block, rule: PosixTimeZone?) {
        self.init(identifier: identifier, transitions: block.times, offsets: block.types.map { block.offsets[Int($0)] },
                  initialOffset: block.offsets[0], rule: rule)
    }
}

private struct TZifReader {
    let bytes: [UInt8]
    var index = 0

    struct Header {
        let version: UInt8
        let isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

        func blockSize(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    struct Block {
        let times: [Int64]
        let types: [UInt8]
        let offsets: [Int32]
    }

    mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func skip(_ count: Int) throws(TimeZoneRules.InvalidTZif) {
        guard count >= 0, count <= bytes.count - index else { throw .init(description: "cut short") }
        index += count
    }

    mutating func integer(_ size: Int) throws(TimeZoneRules.InvalidTZif) -> Int64 {
        guard size <= bytes.count - index else { throw .init(description: "cut short") }
        var value: UInt64 = 0
        for byte in bytes[index..<index + size] { value = value << 8 | UInt64(byte) }
        index += size
        // Sign-extend from `size` bytes.
        let shift = UInt64(64 - size * 8)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }

    mutating func header() throws(TimeZoneRules.InvalidTZif) -> Header {
        guard bytes.count - index >= 44, bytes[index..<index + 4].elementsEqual("TZif".utf8) else {
            throw .init(description: "not a TZif file")
        }
        let version = bytes[index + 4]
        guard version == 0 || (version >= UInt8(ascii: "2") && version <= UInt8(ascii: "9")) else {
            throw .init(description: "unknown TZif version \(version)")
        }
        index += 20
        var counts: [Int] = []
        for _ in 0..<6 {
            let count = try integer(4)
            // A count beyond the bytes there are cannot be true; checked before anything is made of it.
            guard count >= 0, count <= bytes.count else { throw .init(description: "a count larger than the file") }
            counts.append(Int(count))
        }
        let header = Header(version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2],
                            timecnt: counts[3], typecnt: counts[4], charcnt: counts[5])
        guard header.typecnt >= 1, header.charcnt >= 1 else { throw .init(description: "no local time types") }
        guard header.isutcnt == 0 || header.isutcnt == header.typecnt, header.isstdcnt == 0 || header.isstdcnt == header.typecnt else {
            throw .init(description: "indicator counts that do not match the types")
        }
        return header
    }

    mutating func block(_ header: Header, timeSize: Int) throws(TimeZoneRules.InvalidTZif) -> Block {
        guard header.blockSize(timeSize: timeSize) <= bytes.count - index else { throw .init(description: "cut short") }
        var times: [Int64] = []
        times.reserveCapacity(header.timecnt)
        for _ in 0..<header.timecnt {
            let time = try integer(timeSize)
            if let last = times.last, time <= last { throw .init(description: "transition times not in ascending order") }
            times.append(time)
        }
        var types: [UInt8] = []
        types.reserveCapacity(header.timecnt)
        for _ in 0..<header.timecnt {
            let type = bytes[index]
            index += 1
            guard Int(type) < header.typecnt else { throw .init(description: "a transition to a type that is not there") }
            types.append(type)
        }
        var offsets: [Int32] = []
        for _ in 0..<header.typecnt {
            let offset = try integer(4)
            // RFC 8536: never -2^31; tzdata keeps offsets within a day and a bit either way.
            guard abs(offset) <= 7 * 86_400 else { throw .init(description: "an offset from UTC of \(offset) seconds") }
            offsets.append(Int32(offset))
            try skip(2)  // isdst, abbreviation index: FocusBridge shows no abbreviations
        }
        try skip(header.charcnt + header.leapcnt * (timeSize + 4) + header.isstdcnt + header.isutcnt)
        return Block(times: times, types: types, offsets: offsets)
    }
}
