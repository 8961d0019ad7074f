/// The command line's words for time: `--for 90m` / `1h30m` / `2h`, and `--until 17:00`.
public enum DurationText {
    /// `90m`, `1h30m`, `2h`, `45s`, `1d`: seconds; nil when not of that form, zero or not finite
    /// (its length is checked against `TimeBounds.longestDuration` by the caller, which says so).
    public static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
        var total: Double = 0
        var number = ""
        for character in text.lowercased() {
            if character.isASCII && character.isNumber {
                number.append(character)
            } else if let unit = units[character], let value = Double(number) {
                total += value * unit
                number = ""
            } else {
                return nil
            }
        }
        guard number.isEmpty, total > 0, total.isFinite else { return nil }
        return total
    }

    /// The next `HH:MM` local time after `now` (today, or tomorrow when it has passed).
    public static func nextTime(_ text: String, after now: Instant, timeZone: TimeZoneRules) -> Instant? {
        guard let time = TimeOfDay(text) else { return nil }
        let clock = WallClock(timeZone: timeZone)
        let today = clock.day(of: now)
        let instant = clock.instant(time, on: today)
        return instant > now ? instant : clock.instant(time, on: clock.day(today, plus: 1))
    }
}
