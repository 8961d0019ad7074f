import FocusBridgeCore
import FocusBridgeTime
import Foundation

/// Local times for people (JSON carries UTC timestamps).
enum LocalTime {
    /// `17:30` today, `Sat 08:00` on another day; with `always`, the full date and time.
    static func string(_ instant: Instant, always: Bool = false) -> String {
        let date = Date(timeIntervalSince1970: instant.timeIntervalSince1970)
        let formatter = DateFormatter()
        formatter.dateFormat = always ? "yyyy-MM-dd HH:mm:ss" : Calendar.current.isDateInToday(date) ? "HH:mm" : "EEE HH:mm"
        return formatter.string(from: date)
    }
}
