import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeTime

/// A notification ID as typed: a whole number of 1 or more, else one sentence and exit 1.
enum NotificationIDText {
    static func parse(_ text: String, what: String = "ID") -> UInt32 {
        guard let value = UInt32(text), value >= 1 else {
            ControlClient.fail("focusctl: \(what) takes a notification ID as focusctl history lists them (a whole number "
                               + "of 1 or more), not \"\(text)\".", code: 1)
        }
        return value
    }
}

/// Calls one of the fate methods and prints what it did (or its JSON).
private func act(_ request: Control1Request, json: Bool) {
    let (report, text) = ControlClient().report(FateActionReport.self, request)
    print(json ? text : report.message.escapingControlCharacters)
}

/// `focusctl show ID`.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a notification now: a held one as itself, a past one again as a copy from history.",
        discussion: """
            A held notification (focusctl history says held-focus or held-summary) goes out as \
            itself, as a digest's Show All would send it: its app hears its actions and its close. \
            A past one is shown again as a copy under a new ID, from what history keeps of it: its \
            app name, icon, summary, body and kept hints, without actions or images.
            """)

    @Argument(help: ArgumentHelp("The notification, by its ID in focusctl history.", valueName: "id"))
    var id: String

    @OptionGroup var output: JSONOutput<JSONHelp.FateAction>

    func run() throws {
        act(.show(id: NotificationIDText.parse(id)), json: output.json)
    }
}

/// `focusctl dismiss ID|--all-held`.
struct DismissCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss",
        abstract: "Dismiss a held notification, or every one: its app is told (NotificationClosed, reason 2).")

    @Argument(help: ArgumentHelp("The held notification, by its ID in focusctl history.", valueName: "id"))
    var id: String?

    @Flag(help: "Dismiss every held notification, for a Focus or the summary, in a digest or not.")
    var allHeld = false

    @OptionGroup var output: JSONOutput<JSONHelp.FateAction>

    func validate() throws {
        if id != nil && allHeld { throw ValidationError("Give an ID or --all-held, not both.") }
        if id == nil && !allHeld {
            throw ValidationError("Give the ID of a held notification (a whole number of 1 or more, as focusctl history lists them), or --all-held.")
        }
    }

    func run() throws {
        if allHeld { return act(.dismissHeld, json: output.json) }
        act(.dismiss(id: NotificationIDText.parse(id ?? "")), json: output.json)
    }
}

/// `focusctl snooze ID [--for DURATION]`.
struct SnoozeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze",
        abstract: "Take a notification off the screen for a while (default an hour); it comes back as itself.",
        discussion: """
            The notification leaves the screen and its app is not told: its ID stays alive, and \
            the app may still replace it (the update waits with it) or close it. When the time \
            is up it is shown again as itself, with its actions, from what history keeps of it \
            (its summary and body, not its images); if a Focus or the scheduled summary would \
            hold it then, it is held for that instead. It is kept across restarts. Snoozing one \
            snoozed already sets a new end; focusctl show ID shows it sooner, focusctl dismiss \
            ID ends it.
            """)

    @Argument(help: ArgumentHelp("The notification on screen, by its ID in focusctl history.", valueName: "id"))
    var id: String

    // Any text is taken as the value ("-5m" too), so a bad one gets one sentence, not "Missing value".
    @Option(name: .customLong("for"), parsing: .unconditional,
            help: ArgumentHelp("For this long: 45s, 10m, 1h30m, 2h (default 1h, at most 7d).", valueName: "duration"))
    var duration: String?

    @OptionGroup var output: JSONOutput<JSONHelp.FateAction>

    func run() throws {
        let number = NotificationIDText.parse(id)
        var seconds = SnoozeLength.standard
        if let duration {
            guard let value = DurationText.seconds(duration) else {
                ControlClient.fail("focusctl: --for takes a duration such as 45s, 10m, 1h30m or 2h, not \"\(duration)\".", code: 1)
            }
            if let problem = SnoozeLength.problem(value) {
                ControlClient.fail("focusctl: \(problem), not \"\(duration)\".", code: 1)
            }
            seconds = value
        }
        act(.snooze(id: number, seconds: seconds), json: output.json)
    }
}

/// `focusctl digest show-all [ID]`.
struct DigestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digest", abstract: "Act on a digest the bridge delivered.",
        subcommands: [ShowAll.self])

    struct ShowAll: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show-all",
            abstract: "Do what the digest's Show All does: each notification it stands for is shown as itself.")

        @Argument(help: ArgumentHelp("The digest, by its ID in focusctl history (default: the newest one open).",
                                     valueName: "id"))
        var id: String?

        @OptionGroup var output: JSONOutput<JSONHelp.FateAction>

        func run() throws {
            act(.showAll(digest: id.map { NotificationIDText.parse($0) } ?? 0), json: output.json)
        }
    }
}
