/// "Did you mean …?" for a misspelt word (a focusctl command, a Focus name, an app): the known
/// name at the smallest edit distance, if it is close enough to be what was meant.
public enum ClosestName {
    /// The most edits a suggestion may be from the word, however long the word.
    public static let maxEdits = 16

    /// The candidate nearest to `word` (case-insensitive), or nil when none is within
    /// max(2, a third of the word's length, at most `maxEdits`) edits; of equally near ones,
    /// the first.
    ///
    /// Candidates are compared in the order of a lower bound of their distance that costs one
    /// pass over each (how many characters differ in number), and a comparison stops as soon as
    /// the distance is past the nearest found so far: the cost is the candidates' count times
    /// the word's length times that bound, not the product of their lengths.
    public static func to(_ word: String, among candidates: [String]) -> String? {
        let lowered = Array(word.lowercased().unicodeScalars)
        let limit = min(max(2, word.count / 3), maxEdits)
        let wordCounts = histogram(lowered)
        var ranked: [(floor: Int, index: Int, scalars: [Unicode.Scalar])] = []
        for (index, candidate) in candidates.enumerated() {
            let scalars = Array(candidate.lowercased().unicodeScalars)
            guard abs(scalars.count - lowered.count) <= limit else { continue }
            let counts = histogram(scalars)
            var differing = 0
            for bucket in 0..<Self.buckets { differing += abs(counts[bucket] - wordCounts[bucket]) }
            // An edit changes the characters' numbers by two at most (a swap, not at all).
            let floor = (differing + 1) / 2
            if floor <= limit { ranked.append((floor, index, scalars)) }
        }
        ranked.sort { ($0.floor, $0.index) < ($1.floor, $1.index) }
        var best: (index: Int, distance: Int)?
        for candidate in ranked {
            // An earlier candidate may tie with the best; a later one must beat it.
            let bound = best.map { candidate.index < $0.index ? $0.distance : $0.distance - 1 } ?? limit
            if let best, candidate.floor > best.distance { break }
            guard candidate.floor <= bound else { continue }
            let distance = self.distance(lowered, candidate.scalars, atMost: bound)
            if distance <= bound { best = (candidate.index, distance) }
        }
        guard let best, best.distance < max(word.count, 1) else { return nil }
        return candidates[best.index]
    }

    private static let buckets = 64

    /// How many of each character, in `buckets` buckets (characters that share one make the
    /// bound lower, never wrong).
    private static func histogram(_ scalars: [Unicode.Scalar]) -> [Int] {
        var counts = [Int](repeating: 0, count: buckets)
        for scalar in scalars { counts[Int(scalar.value) % buckets] += 1 }
        return counts
    }

    /// The Levenshtein distance, with a swap of two neighbours counting as one edit
    /// (`stauts` is one edit from `status`).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        return distance(a, b, atMost: max(a.count, b.count))
    }

    /// The distance of `a` and `b` when it is at most `bound`, else some number above `bound`.
    /// Only the cells within `bound` of the diagonal are filled, three rows at a time (the cells
    /// right of a row's band are never written, so they stay `bound + 1`).
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], atMost bound: Int) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        guard abs(a.count - b.count) <= bound else { return bound + 1 }
        let over = bound + 1
        var before = [Int](repeating: over, count: b.count + 1) // row i - 2
        var previous = [Int](repeating: over, count: b.count + 1) // row i - 1
        var current = [Int](repeating: over, count: b.count + 1)
        for j in 0...min(b.count, bound) { previous[j] = j }
        var previousLow = 0
        for i in 1...a.count {
            let low = max(1, i - bound), high = min(b.count, i + bound)
            // The cells left of the band hold an older row's values: the one read is reset.
            current[0] = i <= bound ? i : over
            if low > 1 { current[low - 1] = over }
            var rowLow = current[0]
            if low <= high {
                for j in low...high {
                    let cost = a[i - 1] == b[j - 1] ? 0 : 1
                    var cell = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                    if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { cell = min(cell, before[j - 2] + 1) }
                    current[j] = min(cell, over)
                    rowLow = min(rowLow, current[j])
                }
            }
            // Every later cell comes from this row or, by a swap, from the one before.
            if rowLow > bound && previousLow > bound { return over }
            previousLow = rowLow
            swap(&before, &previous)
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// `; did you mean 'status'?` or nothing.
    public static func hint(_ word: String, among candidates: [String]) -> String {
        to(word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }
}
