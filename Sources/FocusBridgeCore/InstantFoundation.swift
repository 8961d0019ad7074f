import Foundation

// Temporary (issue 16): where Core still calls Foundation's calendar; goes with Foundation.
extension Instant {
    var date: Date { Date(timeIntervalSince1970: timeIntervalSince1970) }
    init(_ date: Date) { self.init(timeIntervalSince1970: date.timeIntervalSince1970) }
}
