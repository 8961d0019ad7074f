import FocusBridgeTime

/// A `[focus.NAME]` table: what may still interrupt while this Focus is on.
public struct FocusProfile: Equatable, Sendable {
    /// Which apps break through: only those listed (`apps`), or all but those listed (`silence`).
    public enum AppFilter: Equatable, Sendable {
        case allowOnly([String])
        case silence([String])

        public func allows(_ appKey: String) -> Bool {
            let key = appKey.lowercased()
            switch self {
            case .allowOnly(let apps): return apps.contains { $0.lowercased() == key }
            case .silence(let apps): return !apps.contains { $0.lowercased() == key }
            }
        }
    }

    public var name: String
    public var apps: AppFilter = .allowOnly([])
    /// People whose communication notifications break through.
    public var people: [String] = []
    /// Whether time-sensitive notifications break through (default yes).
    public var timeSensitive = true
    /// Whether a second call from the same person within 3 minutes breaks through (default yes, as on iOS).
    public var repeatedCalls = true
    public var previews: PreviewMode?
    public var schedule: [ScheduleEntry] = []
    /// On while a fullscreen window is up (`while-fullscreen`).
    public var whileFullscreen = false
    /// On while one of these apps has the focused window (`while-focused`).
    public var whileFocused: [String] = []

    /// True for the built-in `dnd`, false for every profile of the configuration file.
    public var isBuiltIn = false

    public init(name: String) { self.name = name }

    public static let doNotDisturbName = "dnd"

    /// The built-in Do Not Disturb, as Apple's: no app and no person breaks through, only
    /// time-sensitive and critical notifications do (critical ones always do); no schedule.
    /// A `[focus.dnd]` table in the configuration replaces it (`PolicySettings.profiles`).
    public static let doNotDisturb: FocusProfile = {
        var profile = FocusProfile(name: doNotDisturbName)
        profile.apps = .allowOnly([])
        profile.people = []
        profile.timeSensitive = true
        profile.isBuiltIn = true
        return profile
    }()

    public func allows(person: String) -> Bool {
        let lowered = person.lowercased()
        return people.contains { $0.lowercased() == lowered }
    }
}

/// One `[[focus.NAME.schedule]]` entry: on these days, from `start` to `end` local time. An end
/// at or before the start crosses midnight (`22:30`–`07:00` ends the next morning).
public struct ScheduleEntry: Equatable, Sendable {
    public var days: Set<Weekday>
    public var start: TimeOfDay
    public var end: TimeOfDay

    public init(days: Set<Weekday>, start: TimeOfDay, end: TimeOfDay) {
        self.days = days
        self.start = start
        self.end = end
    }

    public var crossesMidnight: Bool { end <= start }
}

extension FocusProfile {
    /// The refusal of an unknown Focus name: the names there are, and the closest one.
    /// `there is no Focus named "wrok"; did you mean 'work'? (known: work, dnd).`
    public static func unknownSentence(_ name: String, known profiles: [FocusProfile]) -> String {
        let names = profiles.map(\.name)
        return "there is no Focus named \"\(name)\"" + ClosestName.hint(name, among: names)
            + " (known: \(names.joined(separator: ", ")))."
    }
}
