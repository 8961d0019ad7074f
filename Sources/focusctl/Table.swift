import FocusBridgeCore

/// Short, aligned columns for people (JSON is for programs). Every cell is shown with its
/// control characters escaped (`escapingControlCharacters`): a cell is one line of text, never
/// a terminal command.
enum Table {
    static func render(_ unescaped: [[String]]) -> String {
        let rows = unescaped.map { $0.map(\.escapingControlCharacters) }
        let widths = rows.reduce(into: [Int]()) { widths, row in
            for (index, cell) in row.enumerated() {
                if index >= widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
