import FocusBridgeCore
import XCTest

/// "Did you mean" over many long names: the same answer as comparing every name in full, the
/// near one found among thousands, and nothing suggested from far away.
final class ClosestNameTests: XCTestCase {
    /// The full table, no bound: what `ClosestName.to` must agree with.
    private func reference(_ word: String, among candidates: [String]) -> String? {
        let limit = min(max(2, word.count / 3), ClosestName.maxEdits)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = fullDistance(Array(word.lowercased().unicodeScalars), Array(candidate.lowercased().unicodeScalars))
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        guard let best, best.distance <= limit, best.distance < max(word.count, 1) else { return nil }
        return best.name
    }

    private func fullDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[a.count][b.count]
    }

    private struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    private func mutate(_ word: String, edits: Int, _ generator: inout Generator) -> String {
        var letters = Array(word)
        for _ in 0..<edits {
            let position = generator.next(max(letters.count, 1))
            switch generator.next(4) {
            case 0 where !letters.isEmpty: letters.remove(at: position)
            case 1: letters.insert("xyzab".randomElement()!, at: min(position, letters.count))
            case 2 where position + 1 < letters.count: letters.swapAt(position, position + 1)
            default: if !letters.isEmpty { letters[position] = "q" }
            }
        }
        return String(letters)
    }

    func testTheSameAnswerAsTheFullTable() {
        var generator = Generator(state: 7)
        let alphabet = Array("abcdeAB-")
        for round in 0..<300 {
            let candidates = (0..<(1 + generator.next(12))).map { _ in
                String((0..<(1 + generator.next(14))).map { _ in alphabet[generator.next(alphabet.count)] })
            }
            let word = generator.next(3) == 0 ? String((0..<(1 + generator.next(14))).map { _ in alphabet[generator.next(alphabet.count)] })
                : mutate(candidates[generator.next(candidates.count)], edits: generator.next(4), &generator)
            XCTAssertEqual(ClosestName.to(word, among: candidates), reference(word, among: candidates),
                           "round \(round): \(word) among \(candidates)")
        }
        XCTAssertEqual(ClosestName.to("ab", among: ["ba", "ab"]), "ab")
        XCTAssertEqual(ClosestName.to("abcd", among: ["abce", "abcf"]), "abce", "of equally near ones, the first")
        XCTAssertEqual(ClosestName.to("abcd", among: ["zzzz", "abcf", "abce"]), "abcf")
    }

    func testTheNearNameAmongThousandsOfLongOnes() {
        var generator = Generator(state: 42)
        let names = (0..<6000).map { index in
            "app-\(index)-" + String((0..<240).map { _ in Character(Unicode.Scalar(UInt8(97 + generator.next(26)))) })
        }
        let meant = names[4321]
        let typed = mutate(meant, edits: 3, &generator).uppercased()
        XCTAssertEqual(ClosestName.to(typed, among: names), meant)
        XCTAssertNil(ClosestName.to(String(repeating: "z", count: 250), among: names), "nothing near: no suggestion")
        XCTAssertNil(ClosestName.to(mutate(meant, edits: 40, &generator), among: [meant]),
                     "more than \(ClosestName.maxEdits) edits away is no longer a typo")
    }
}
