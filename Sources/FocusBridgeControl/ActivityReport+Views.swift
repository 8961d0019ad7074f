import FocusBridgeCore

/// How `focusctl report` shows a report to people: bars of Unicode blocks in a terminal, and a
/// picture (SVG) that opens in a browser. Pure text, so both are tested without a terminal.
extension ActivityReport {
    /// The levels in the order they are stacked and listed, lowest first.
    static let levelOrder: [InterruptionLevel] = [.passive, .active, .timeSensitive, .critical]
    /// The outcomes in the order they are listed, with their words.
    static let outcomeWords: [(outcome: NotificationOutcome, words: String)] = [
        (.acted, "acted"), (.dismissed, "dismissed"), (.expired, "expired"), (.closedByApp, "closed by app"),
        (.replaced, "replaced"), (.open, "open"),
    ]

    /// A bar of `width` cells for `value` out of `maximum`, in eighths of a cell; a value above 0
    /// always shows at least an eighth.
    public static func bar(_ value: Int, of maximum: Int, width: Int = 24) -> String {
        guard value > 0, maximum > 0, width > 0 else { return "" }
        let eighths = max(1, Int((Double(min(value, maximum)) / Double(maximum) * Double(width * 8)).rounded()))
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return String(repeating: "█", count: eighths / 8) + partial[eighths % 8]
    }

    /// One character per count, ` ` for none and `▁` to `█` for the rest, scaled to the largest.
    public static func sparkline(_ counts: [Int]) -> String {
        let levels = Array("▁▂▃▄▅▆▇█")
        let largest = counts.max() ?? 0
        return String(counts.map { count -> Character in
            guard count > 0, largest > 0 else { return " " }
            return levels[min(levels.count - 1, (count * levels.count - 1) / largest)]
        })
    }

    /// `20 acted, 90 dismissed, 2 open`: the outcomes that are not 0, or `none shown`.
    public static func outcomesText(_ counts: Counts) -> String {
        let parts = outcomeWords.compactMap { item -> String? in
            let count = counts.outcomes[item.outcome.rawValue] ?? 0
            return count == 0 ? nil : "\(count) \(item.words)"
        }
        return parts.isEmpty ? "none shown" : parts.joined(separator: ", ")
    }

    // MARK: The picture

    /// The colour of each level in the picture.
    static let levelColours: [InterruptionLevel: String] = [
        .passive: "#9aa5b1", .active: "#3d7dca", .timeSensitive: "#e39b2d", .critical: "#d64545",
    ]

    /// The most apps the picture shows (the busiest); it says how many more there are.
    public static let pictureApps = 20

    /// One self-contained SVG document: a bar per app (the busiest `pictureApps`) split by level,
    /// and the notifications of each hour of the day. Every text from outside (app names) is
    /// written with its control characters spelt out and XML's special characters escaped;
    /// `subtitle` says the period in the reader's words.
    public func svg(subtitle: String) -> String {
        let width = 820
        let nameRight = 230, barLeft = 240, barWidth = 420
        let rowHeight = 26
        let shown = Array(apps.prefix(Self.pictureApps))
        let busiest = shown.first?.counts.total ?? 0
        var y = 78
        var body: [String] = []
        body.append(Self.text(x: 24, y: 34, "Notifications of the last \(days) day\(days == 1 ? "" : "s"): \(totals.total)",
                              size: 20, weight: "bold"))
        body.append(Self.text(x: 24, y: 56, subtitle, size: 13, fill: "#555"))
        // The legend of levels.
        var legendX = barLeft
        for level in Self.levelOrder {
            body.append("<rect x=\"\(legendX)\" y=\"\(y - 11)\" width=\"12\" height=\"12\" fill=\"\(Self.levelColours[level]!)\"/>")
            body.append(Self.text(x: legendX + 17, y: y, level.rawValue, size: 12))
            legendX += 40 + 8 * level.rawValue.count
        }
        y += 18
        if shown.isEmpty {
            y += rowHeight
            body.append(Self.text(x: 24, y: y, "No notifications in this period.", size: 14))
        }
        for app in shown {
            y += rowHeight
            body.append(Self.text(x: nameRight, y: y, Self.cut(app.app, 32), size: 14, anchor: "end"))
            var x = Double(barLeft)
            for level in Self.levelOrder {
                let count = app.counts.levels[level.rawValue] ?? 0
                guard count > 0, busiest > 0 else { continue }
                let length = Double(count) / Double(busiest) * Double(barWidth)
                body.append("<rect x=\"\(Self.number(x))\" y=\"\(y - 14)\" width=\"\(Self.number(length))\" height=\"18\" "
                            + "fill=\"\(Self.levelColours[level]!)\"><title>\(Self.escaped(app.app)): \(count) \(level.rawValue)</title></rect>")
                x += length
            }
            let acted = app.counts.outcomes[NotificationOutcome.acted.rawValue] ?? 0
            body.append(Self.text(x: Int(x.rounded()) + 8, y: y, "\(app.counts.total)  (\(acted) acted)", size: 13, fill: "#333"))
        }
        if apps.count > shown.count || unlisted > 0 {
            y += rowHeight
            let more = apps.count - shown.count
            body.append(Self.text(x: nameRight, y: y, "and \(more) more app\(more == 1 ? "" : "s")"
                                  + (unlisted > 0 ? " (\(unlisted) more notifications)" : ""), size: 13, fill: "#555",
                                  anchor: "end"))
        }
        // The hours of the day.
        y += 48
        body.append(Self.text(x: 24, y: y, "By hour of the day (\(timeZone))", size: 16, weight: "bold"))
        let chartTop = y + 14, chartHeight = 120, column = (width - 48) / 24
        let peak = totals.byHour.max() ?? 0
        if peak > 0, let busiest = totals.byHour.firstIndex(of: peak) {
            body.append(Self.text(x: width - 24, y: y, "busiest: \(Self.twoDigits(busiest)):00–\(Self.twoDigits((busiest + 1) % 24)):00, "
                                  + "\(peak) notification\(peak == 1 ? "" : "s")", size: 12, fill: "#555", anchor: "end"))
        }
        for (hour, count) in totals.byHour.enumerated() {
            let x = 24 + hour * column
            if count > 0, peak > 0 {
                let height = max(1.0, Double(count) / Double(peak) * Double(chartHeight))
                body.append("<rect x=\"\(x + 2)\" y=\"\(Self.number(Double(chartTop + chartHeight) - height))\" "
                            + "width=\"\(column - 4)\" height=\"\(Self.number(height))\" fill=\"#3d7dca\">"
                            + "<title>\(Self.twoDigits(hour)):00–\(Self.twoDigits((hour + 1) % 24)):00: \(count)</title></rect>")
            }
            if hour % 3 == 0 {
                body.append(Self.text(x: x + column / 2, y: chartTop + chartHeight + 16, Self.twoDigits(hour), size: 11,
                                      fill: "#555", anchor: "middle"))
            }
        }
        body.append("<line x1=\"24\" y1=\"\(chartTop + chartHeight)\" x2=\"\(24 + 24 * column)\" y2=\"\(chartTop + chartHeight)\" "
                    + "stroke=\"#999\" stroke-width=\"1\"/>")
        let height = chartTop + chartHeight + 36
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
            font-family="sans-serif" role="img">
            <title>FocusBridge: notifications of the last \(days) day\(days == 1 ? "" : "s")</title>
            <rect width="100%" height="100%" fill="#ffffff"/>
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    private static func text(x: Int, y: Int, _ text: String, size: Int, weight: String? = nil, fill: String = "#111",
                             anchor: String? = nil) -> String {
        "<text x=\"\(x)\" y=\"\(y)\" font-size=\"\(size)\" fill=\"\(fill)\""
            + (weight.map { " font-weight=\"\($0)\"" } ?? "") + (anchor.map { " text-anchor=\"\($0)\"" } ?? "")
            + ">\(escaped(text))</text>"
    }

    /// `text` as XML character data or an attribute's value: control characters spelt out
    /// (`\e`, `\x01`: XML 1.0 cannot hold most of them at all), `& < > " '` as entities, and
    /// the two noncharacters XML forbids as U+FFFD.
    public static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.escapingControlCharacters.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\u{FFFE}", "\u{FFFF}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// At most `limit` characters, the last one `…` when cut.
    static func cut(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    private static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
