/// "Did you mean …?" for a misspelt word (a focusctl command, a Focus name): the known name at
/// the smallest edit distance, if it is close enough to be what was meant.
public enum ClosestName {
    /// The candidate nearest to `word` (case-insensitive), or nil when none is within
    /// max(2, a third of the word's length) edits; of equally near ones, the first.
    public static func to(_ word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = self.distance(lowered, candidate.lowercased())
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(2, word.count / 3), best.distance < max(word.count, 1) else { return nil }
        return best.name
    }

    /// The Levenshtein distance, with a swap of two neighbours counting as one edit
    /// (`stauts` is one edit from `status`).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// `; did you mean 'status'?` or nothing.
    public static func hint(_ word: String, among candidates: [String]) -> String {
        to(word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }
}
