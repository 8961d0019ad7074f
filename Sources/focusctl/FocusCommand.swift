import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeTime

/// `focusctl focus [show]|on|off|list`.
struct FocusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus", abstract: "Show the Focus that is on, turn one on or off, or list them.",
        subcommands: [Show.self, On.self, Off.self, List.self], defaultSubcommand: Show.self)

    /// `focusctl focus` alone: the Focus on now, as `status` says it.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the Focus that is on now.")

        @OptionGroup var output: JSONOutput<JSONHelp.FocusNow>

        func run() throws {
            let status = ControlClient().report(StatusReport.self, .status).value
            if output.json { return print(status.focus.map { JSONText.encode($0) } ?? "null") }
            print(FocusCommand.describe(status.focus))
        }
    }

    struct On: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on",
            abstract: "Turn a Focus on (until the next boundary of the schedules, unless --for or --until).")

        @Argument(help: "The Focus, as named in the configuration, or dnd (built in).")
        var name: String

        @OptionGroup var time: FocusTime

        @OptionGroup var output: JSONOutput<JSONHelp.FocusChange>

        func validate() throws { try time.validate() }

        func run() throws {
            FocusCommand.turnOn(name, time: time, json: output.json)
        }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off",
            abstract: "Turn the Focus off (until the next boundary of the schedules); say what it held.")

        @OptionGroup var output: JSONOutput<JSONHelp.FocusChange>

        func run() throws {
            FocusCommand.turnOff(json: output.json)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the Focus profiles.")

        @OptionGroup var output: JSONOutput<JSONHelp.Array>

        func run() throws {
            let (focuses, text) = ControlClient().report([FocusListReport].self, .focusList)
            if output.json {
                print(text)
                return
            }
            let rows = focuses.map { focus -> [String] in
                let schedule = focus.schedule.map { "\($0.days.joined(separator: ",")) \($0.start)–\($0.end)" }
                    .joined(separator: "; ")
                var allowed = focus.apps.map { "allows " + ($0.isEmpty ? "no app" : $0.joined(separator: ", ")) }
                    ?? focus.silence.map { "silences " + $0.joined(separator: ", ") } ?? ""
                if focus.builtIn == true { allowed = "built in: only time-sensitive and critical break through" }
                return [focus.active ? "*" : " ", focus.name, allowed, schedule.isEmpty ? "by hand" : schedule]
            }
            print(Table.render(rows))
        }
    }

    /// Turns a Focus on and says so: "work is on until 17:30." (and what the one before held).
    static func turnOn(_ name: String, time: FocusTime, json: Bool) {
        let (seconds, until) = time.checked()
        let (change, text) = ControlClient().report(FocusChangeReport.self, .focusOn(name: name, seconds: seconds, until: until ?? ""))
        if json { return print(text) }
        if let ended = change.ended { print(endedSentence(ended)) }
        print(onSentence(change.status.focus))
    }

    /// Turns the Focus off and says what it did: "work is off; 3 held notifications were
    /// delivered in a digest." or "No Focus was on."
    static func turnOff(json: Bool) {
        let (change, text) = ControlClient().report(FocusChangeReport.self, .focusOff)
        if json { return print(text) }
        print(change.ended.map(endedSentence) ?? "No Focus was on.")
    }

    /// "work is on until 17:30." / "work is on until you turn it off."
    static func onSentence(_ focus: StatusReport.Focus?) -> String {
        guard let focus else { return "No Focus is on." }
        guard let until = focus.until.flatMap(Timestamp.parse) else {
            let off = focus.name.lowercased() == FocusProfile.doNotDisturbName ? "dnd off" : "focus off"
            return "\(focus.name) is on until you turn it off (focusctl \(off))."
        }
        return "\(focus.name) is on until \(LocalTime.string(until))."
    }

    /// What ending a Focus did with what it held.
    static func endedSentence(_ ended: FocusChangeReport.Ended) -> String {
        let n = ended.held
        guard n > 0 else { return "\(ended.name) is off; it held no notifications." }
        let held = n == 1 ? "1 held notification was" : "\(n) held notifications were"
        switch ended.afterFocus {
        case "replay": return "\(ended.name) is off; \(held) delivered again, one by one."
        case "none": return "\(ended.name) is off; \(held) dismissed (after-focus = \"none\"; see focusctl history)."
        default: return "\(ended.name) is off; \(held) delivered in a digest."
        }
    }

    /// "work is on until 17:30 (manual)." / "No Focus is on." (the status line).
    static func describe(_ focus: StatusReport.Focus?) -> String {
        guard let focus else { return "No Focus is on." }
        var text = "\(focus.name) is on"
        if let until = focus.until.flatMap(Timestamp.parse) { text += " until \(LocalTime.string(until))" }
        let source = focus.source == "shared" ? "from \(focus.device ?? "another device")" : focus.reason ?? focus.source
        return text + " (\(source))."
    }
}

/// `--for` and `--until`, for `focus on` and `dnd on`.
struct FocusTime: ParsableArguments {
    // Any text is taken as the value ("-5m" too), so a bad one gets one sentence, not "Missing value".
    @Option(name: .customLong("for"), parsing: .unconditional,
            help: ArgumentHelp("For this long: 90m, 1h30m, 2h.", valueName: "duration"))
    var duration: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Until this time of day (HH:MM).", valueName: "time"))
    var until: String?

    func validate() throws {
        if duration != nil && until != nil { throw ValidationError("Give --for or --until, not both.") }
    }

    /// The seconds (0: none) and the time of day; a bad one is refused here with one sentence
    /// and exit 1, before anything is sent.
    func checked() -> (seconds: Double, until: String?) {
        var seconds: Double = 0
        if let duration {
            guard let value = DurationText.seconds(duration) else {
                ControlClient.fail("focusctl: --for takes a duration such as 90m, 1h30m or 2h, not \"\(duration)\".", code: 1)
            }
            guard value <= TimeBounds.longestDuration else {
                ControlClient.fail("focusctl: --for takes at most 366 days (366d), not \"\(duration)\".", code: 1)
            }
            seconds = value
        }
        if let until, TimeOfDay(until) == nil {
            ControlClient.fail("focusctl: --until takes a time of day as HH:MM, not \"\(until)\".", code: 1)
        }
        return (seconds, until)
    }
}

/// `focusctl dnd on|off`: the built-in Do Not Disturb Focus.
struct DndCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dnd",
        abstract: "Do Not Disturb: nothing below time-sensitive is shown until it ends (the Focus named dnd).",
        discussion: """
            dnd is a Focus: time-sensitive and critical notifications break through, everything \
            else is held and delivered when it ends, as after-focus says. A [focus.dnd] table in the \
            configuration replaces the built-in one. Silent mode (focusctl silent) is another \
            thing: it only turns sounds off.
            """,
        subcommands: [On.self, Off.self])

    struct On: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on", abstract: "Turn Do Not Disturb on (until focusctl dnd off, unless --for or --until).")

        @OptionGroup var time: FocusTime

        @OptionGroup var output: JSONOutput<JSONHelp.FocusChange>

        func validate() throws { try time.validate() }

        func run() throws {
            FocusCommand.turnOn(FocusProfile.doNotDisturbName, time: time, json: output.json)
        }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off", abstract: "Turn Do Not Disturb off; say what it held. Another Focus stays on.")

        @OptionGroup var output: JSONOutput<JSONHelp.FocusChange>

        func run() throws {
            let client = ControlClient()
            let status = client.report(StatusReport.self, .status).value
            guard let focus = status.focus, focus.name.lowercased() == FocusProfile.doNotDisturbName else {
                if output.json { return print(JSONText.encode(FocusChangeReport(status: status, ended: nil))) }
                let other = status.focus.map { " (\($0.name) is on; focusctl focus off ends it)" } ?? ""
                return print("Do Not Disturb was not on\(other).")
            }
            FocusCommand.turnOff(json: output.json)
        }
    }
}
