import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeStore
import FocusBridgeTime

/// The per-app calls of `org.focusbridge.Control1` (focusctl(1), APPS and MUTE): the apps seen
/// with their effective settings, run-time choices and mutes. A name no app was seen under is
/// refused with the closest one seen, unless the caller says it is new.
extension ControlInterface {
    /// Handles `call`, one of these methods (`handle` sends no other here).
    func handleAppCall(_ call: VariantCall, _ request: Control1Request) throws {
        let preferences = bridge.preferences
        switch request {
        case .apps:
            call.reply(.tuple([.string(JSONText.encode(apps()))]))
        case .setAppChoice(let name, let keyText, let value, let new):
            let app = try knownApp(name, new: new)
            guard let key = AppChoice.Key(rawValue: keyText) else { throw Refused(Self.unknownKey(keyText)) }
            let choice: AppChoice
            switch AppChoice.parse(key: key, value: value) {
            case .success(let parsed): choice = parsed
            case .failure(let error): throw Refused(error.description)
            }
            preferences.set(choice, for: app)
            reply(call, app, "\(app): \(key.rawValue) is \(choice.value) (your choice; it wins over the configuration "
                  + "until `focusctl app \(app) reset \(key.rawValue)`)")
        case .resetAppChoice(let name, let keyText):
            let app = try knownApp(name, new: true)
            var key: AppChoice.Key?
            if !keyText.isEmpty {
                guard let parsed = AppChoice.Key(rawValue: keyText) else { throw Refused(Self.unknownKey(keyText)) }
                key = parsed
            }
            let reset = preferences.reset(app: app, key: key)
            let message = reset.isEmpty
                ? "\(app) had no choice\(key.map { " for \($0.rawValue)" } ?? "") to reset; nothing changed."
                : "\(app): \(reset.map(\.choice.key.rawValue).joined(separator: ", ")) back to the configuration."
            reply(call, app, message)
        case .mute(let name, let end, let new):
            let app = try knownApp(name, new: new)
            let now = bridge.clock.now
            let until = Instant(timeIntervalSince1970: end)
            guard until.timeIntervalSince1970.isFinite, until > now else { throw Refused("the end of a mute must be in the future") }
            guard until.timeIntervalSince(now) <= MuteList.longest else { throw Refused("a mute lasts a week at most") }
            preferences.mute(app, until: until)
            reply(call, app, "\(app) is muted until \(Fate.localTime(until, now: now)).")
        case .unmute(let name):
            let app = try knownApp(name, new: true)
            let message = preferences.unmute(app) == nil ? "\(app) was not muted; nothing changed." : "\(app) is no longer muted."
            reply(call, app, message)
        default:
            preconditionFailure("\(request.method.rawValue) is not a per-app call")
        }
    }

    struct Refused: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func unknownKey(_ key: String) -> String {
        let keys = AppChoice.Key.allCases.map(\.rawValue)
        var message = "\"\(key)\" is not a setting a choice can be made for (\(keys.joined(separator: ", ")))"
        if let near = ClosestName.to(key, among: keys) { message += "; did you mean \"\(near)\"?" }
        return message
    }

    /// At most `AppReport.maxApps`: those the configuration, a choice or a mute names, then those
    /// that sent the most in the last days. `only`: that app's entry alone (any case).
    private func apps(only app: String? = nil) -> [AppReport] {
        let since = bridge.clock.now.addingTimeInterval(-Double(AppReport.days) * 86_400)
        let counts = (try? store.appCounts(since: since, limit: AppReport.maxApps, app: app)) ?? []
        let names = (try? store.appNames(since: since)) ?? []
        let vias = (try? store.appVias(since: since)) ?? []
        return AppReport.all(counts: counts, names: names, vias: vias, policy: bridge.settings, configPath: configPath,
                             choices: bridge.preferences.choices, mutes: bridge.preferences.mutes, now: bridge.clock.now,
                             limit: app == nil ? AppReport.maxApps : .max)
            .filter { $0.app != Bridge.ownAppName }
    }

    private func reply(_ call: VariantCall, _ app: String, _ message: String) {
        let entry = apps(only: app).first { $0.app.lowercased() == app.lowercased() }
            ?? AppReport.all(counts: [(app, "", "", 0)], policy: bridge.settings, configPath: configPath,
                             choices: bridge.preferences.choices, mutes: bridge.preferences.mutes, now: bridge.clock.now,
                             limit: .max).first { $0.app.lowercased() == app.lowercased() }
        guard let entry else { return call.reply(.tuple([.string(JSONText.encode(["message": message]))])) }
        call.reply(.tuple([.string(JSONText.encode(AppChangeReport(app: entry, message: message)))]))
    }

    /// How many names of apps that sent lately a mistyped name is compared with.
    static let didYouMeanApps = 500

    /// The app as it was seen (its spelling), or the name as given when `new`; otherwise refused,
    /// with the closest name seen.
    private func knownApp(_ name: String, new: Bool) throws -> String {
        guard !name.isEmpty, name.count <= 256 else { throw Refused("an app name is 1 to 256 characters") }
        guard name.lowercased() != Bridge.ownAppName.lowercased() else {
            throw Refused("\(Bridge.ownAppName)'s own notifications (digests, questions) have no settings to choose")
        }
        var named = Array(bridge.settings.apps.keys)
        named += bridge.preferences.choices.all.map(\.app)
        named += bridge.preferences.mutes.active(at: bridge.clock.now).map(\.app)
        if let match = named.first(where: { $0 == name }) ?? (try? store.seenApp(name)) ?? nil
            ?? named.first(where: { $0.lowercased() == name.lowercased() }) {
            return match
        }
        if new { return name }
        var message = "no notification from \"\(name)\" has been seen"
        let recent = (try? store.recentApps(limit: Self.didYouMeanApps)) ?? []
        if let near = ClosestName.to(name, among: Array(Set(named + recent)).sorted()) { message += "; did you mean \"\(near)\"?" }
        throw Refused(message + " (--new sets it for an app not seen yet)")
    }
}
