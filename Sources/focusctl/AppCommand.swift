import ArgumentParser
import FocusBridgeConfig
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeTime

/// `focusctl apps`: every app seen, what it sent lately, and where each of its settings comes from.
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps seen (last 7 days), their notifications, and their settings with where each comes from.")

    @OptionGroup var output: JSONOutput<JSONHelp.Array>

    func run() throws {
        let (apps, text) = ControlClient().report([AppReport].self, .apps)
        if output.json { return print(text) }
        guard !apps.isEmpty else { return print("No app has sent a notification in the last \(AppReport.days) days.") }
        var rows = [["APP", "LAST 7 DAYS", "RULE", "DELIVERY", "TIME SENSITIVE", "MUTED UNTIL"]]
        for app in apps {
            let held = app.decisions.filter { $0.key.hasPrefix("held") || $0.key == "muted" || $0.key == "dropped" }
                .sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            rows.append([Self.names(app),
                         app.quiet ? "nothing sent" : "\(app.total)" + (held.isEmpty ? "" : " (\(held.joined(separator: ", ")))"),
                         Self.rule(app), app.settings["delivery"]?.text ?? "", app.settings["time-sensitive"]?.text ?? "",
                         app.mutedUntil.flatMap { Timestamp.parse($0) }.map { LocalTime.string($0) } ?? "-"])
        }
        print(Table.render(rows))
        if apps.count >= AppReport.maxApps {
            print("At most \(AppReport.maxApps) apps are listed: those in the configuration, with a choice or a mute, "
                  + "then those that sent the most in the last \(AppReport.days) days.")
        }
    }

    /// The app key, then the app names it was sent under: `firefox-esr (Firefox)`; a site, then
    /// the browsers it came through: `app.slack.com via chromium`.
    static func names(_ app: AppReport) -> String {
        let named = app.names.isEmpty ? app.app : "\(app.app) (\(app.names.joined(separator: ", ")))"
        return app.via.isEmpty ? named : named + " via " + app.via.joined(separator: ", ")
    }

    /// The `[apps]` table that applies and what it matched: `[apps."Firefox"] by app name`.
    static func rule(_ app: AppReport) -> String {
        guard let table = app.table else { return "-" }
        return "[apps.\"\(table)\"]" + (app.matched == "app name" ? " by app name" : "")
    }
}

/// `focusctl app NAME [KEY VALUE | reset [KEY]]`: one app's settings, or a choice for it.
struct AppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Show an app's settings, or make a choice for it that wins over the configuration until reset.",
        discussion: """
            focusctl app Slack                       its settings and where each comes from
            focusctl app Slack time-sensitive off    Time Sensitive off (its notifications arrive as active)
            focusctl app Slack delivery summary      held for the scheduled summary (immediate, summary, off)
            focusctl app Slack marketing on          its marketing notifications are allowed (passive, summarised)
            focusctl app Slack level passive         every notification at this level (passive, active, ...)
            focusctl app Slack reset [KEY]           back to the configuration file
            """)

    @Argument(help: "The app, as `focusctl apps` names it.")
    var name: String

    @Argument(help: ArgumentHelp("KEY VALUE, or reset [KEY].", valueName: "words"))
    var words: [String] = []

    @Flag(help: "Allow an app no notification was seen from yet.")
    var new = false

    @OptionGroup var output: JSONOutput<JSONHelp.AppChange>

    func validate() throws {
        if words.count == 1 && words[0] != "reset" {
            throw ValidationError("Give a value for \(words[0]): focusctl app \(name) \(words[0]) VALUE.")
        }
        if words.count > 2 { throw ValidationError("Give one KEY VALUE, or reset [KEY].") }
    }

    func run() throws {
        let client = ControlClient()
        if words.isEmpty {
            let apps = client.report([AppReport].self, .apps).value
            guard let app = apps.first(where: { $0.app == name }) ?? apps.first(where: { $0.app.lowercased() == name.lowercased() }) else {
                let near = ClosestName.to(name, among: apps.map(\.app))
                ControlClient.fail("focusctl: no notification from \"\(name)\" has been seen"
                                   + (near.map { "; did you mean \"\($0)\"?" } ?? "."), code: 1)
            }
            if output.json { return print(JSONText.encode(app)) }
            return AppCommand.show(app)
        }
        let (report, text): (AppChangeReport, String)
        if words[0] == "reset" {
            (report, text) = client.report(AppChangeReport.self, .resetAppChoice(app: name, key: words.count > 1 ? words[1] : ""))
        } else {
            (report, text) = client.report(AppChangeReport.self, .setAppChoice(app: name, key: words[0], value: words[1], new: new))
        }
        if output.json { return print(text) }
        print(report.message.escapingControlCharacters)
    }

    static func show(_ app: AppReport) {
        print(("\(app.app): \(Count.of(app.total, "notification")) in the last \(AppReport.days) days"
              + (app.decisions.isEmpty ? "" : " (" + app.decisions.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                    .joined(separator: ", ") + ")")).escapingControlCharacters)
        if !app.names.isEmpty { print("  app name: \(app.names.joined(separator: ", "))".escapingControlCharacters) }
        if !app.via.isEmpty { print("  a site, via \(app.via.joined(separator: ", "))".escapingControlCharacters) }
        if let table = app.table {
            print("  [apps.\"\(table)\"] applies (matched the \(app.matched ?? "app key"))".escapingControlCharacters)
        }
        if app.quiet { print("  nothing was sent under this name in the last \(AppReport.days) days") }
        var rows: [[String]] = []
        for key in AppReport.keys { if let setting = app.settings[key] { rows.append(["  \(key)", setting.text]) } }
        print(Table.render(rows))
        if let until = app.mutedUntil.flatMap(Timestamp.parse) { print("  muted until \(LocalTime.string(until))") }
    }
}

/// `focusctl mute APP [--for 1h | --until HH:MM]`, `focusctl mute --list`.
struct MuteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mute",
        abstract: "Mute an app for a while (default an hour): its notifications are recorded, never shown, urgent ones too; only an app entitled to critical (critical = true) breaks through.")

    @Argument(help: "The app, as `focusctl apps` names it.")
    var name: String?

    @OptionGroup var time: FocusTime

    @Flag(help: "List the apps muted now.")
    var list = false

    @Flag(help: "Allow an app no notification was seen from yet.")
    var new = false

    @OptionGroup var output: JSONOutput<JSONHelp.Mute>

    func validate() throws {
        try time.validate()
        if list && name != nil { throw ValidationError("Give an app or --list, not both.") }
        if !list && name == nil { throw ValidationError("Give the app to mute, or --list.") }
    }

    func run() throws {
        let client = ControlClient()
        guard let name else {
            let mutes = client.report(StatusReport.self, .status).value.mutes
            if output.json { return print(JSONText.encode(mutes)) }
            if mutes.isEmpty { return print("No app is muted.") }
            return print(Table.render(mutes.map { [$0.app, "until " + (Timestamp.parse($0.until).map { LocalTime.string($0) } ?? $0.until)] }))
        }
        let (seconds, untilText) = time.checked()
        let now = Instant()
        var until = now.addingTimeInterval(seconds == 0 ? 3600 : seconds)
        if let untilText, let next = DurationText.nextTime(untilText, after: now, timeZone: SystemTimeZone.current()) { until = next }
        if until.timeIntervalSince(now) > MuteList.longest {
            ControlClient.fail("focusctl: a mute lasts a week at most.", code: 1)
        }
        let (report, text) = client.report(AppChangeReport.self, .mute(app: name, until: until.timeIntervalSince1970, new: new))
        if output.json { return print(text) }
        let app = report.app.app.escapingControlCharacters
        print("\(app) is muted until \(LocalTime.string(until)): its notifications are recorded, never shown, "
              + "urgent ones (notify-send -u critical) too; only the critical level breaks through, which needs "
              + "critical = true in its [apps] table. focusctl unmute \(app) ends it.")
    }
}

/// `focusctl unmute APP`.
struct UnmuteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unmute", abstract: "End an app's mute.")

    @Argument(help: "The app.")
    var name: String

    @OptionGroup var output: JSONOutput<JSONHelp.AppChange>

    func run() throws {
        let (report, text) = ControlClient().report(AppChangeReport.self, .unmute(app: name))
        if output.json { return print(text) }
        print(report.message.escapingControlCharacters)
    }
}
