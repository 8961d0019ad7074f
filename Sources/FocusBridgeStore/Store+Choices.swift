import FocusBridgeCore
import Foundation
import GRDB

/// The person's run-time choices per app, the mutes and the apps asked about Time Sensitive
/// (focusctl(1), APPS and MUTE): small tables, written at once (a choice is rare), read back
/// leniently at start — a row that cannot be used is left out, never trapped on.
extension Store {
    public func appChoices() throws -> AppChoices {
        try database.read { db in
            let entries = try Row.fetchAll(db, sql: "SELECT app, key, value, made FROM app_choice").compactMap { row -> AppChoices.Entry? in
                guard let app = row.lenient(String.self, "app"), !app.isEmpty,
                      let key = row.lenient(String.self, "key").flatMap(AppChoice.Key.init(rawValue:)),
                      let value = row.lenient(String.self, "value"),
                      case .success(let choice) = AppChoice.parse(key: key, value: value),
                      let made = row.lenient(Double.self, "made"), made.isFinite else { return nil }
                return AppChoices.Entry(app: app, choice: choice, made: Date(timeIntervalSince1970: made))
            }
            var asked: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT app, answer FROM app_asked") {
                guard let app = row.lenient(String.self, "app"), let answer = row.lenient(String.self, "answer") else { continue }
                asked[app] = answer
            }
            return AppChoices(entries, asked: asked)
        }
    }

    public func saveChoice(_ entry: AppChoices.Entry) throws {
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO app_choice (app_key, app, key, value, made) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(app_key, key) DO UPDATE SET app = excluded.app, value = excluded.value, made = excluded.made
                """, arguments: [entry.app.lowercased(), entry.app, entry.choice.key.rawValue, entry.choice.value,
                                 entry.made.timeIntervalSince1970])
        }
    }

    public func resetChoices(app: String, key: AppChoice.Key?) throws {
        try database.write { db in
            if let key {
                try db.execute(sql: "DELETE FROM app_choice WHERE app_key = ? AND key = ?", arguments: [app.lowercased(), key.rawValue])
            } else {
                try db.execute(sql: "DELETE FROM app_choice WHERE app_key = ?", arguments: [app.lowercased()])
            }
        }
    }

    public func noteAsked(app: String, answer: String, at date: Date) throws {
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO app_asked (app_key, app, answer, at) VALUES (?, ?, ?, ?)
                ON CONFLICT(app_key) DO UPDATE SET answer = excluded.answer, at = excluded.at
                """, arguments: [app.lowercased(), app, answer, date.timeIntervalSince1970])
        }
    }

    public func mutes() throws -> MuteList {
        try database.read { db in
            MuteList(try Row.fetchAll(db, sql: "SELECT app, until FROM app_mute").compactMap { row in
                guard let app = row.lenient(String.self, "app"), !app.isEmpty,
                      let until = row.lenient(Double.self, "until"), until.isFinite else { return nil }
                return MuteList.Mute(app: app, until: Date(timeIntervalSince1970: until))
            })
        }
    }

    public func saveMute(_ mute: MuteList.Mute) throws {
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO app_mute (app_key, app, until) VALUES (?, ?, ?)
                ON CONFLICT(app_key) DO UPDATE SET app = excluded.app, until = excluded.until
                """, arguments: [mute.app.lowercased(), mute.app, mute.until.timeIntervalSince1970])
        }
    }

    public func removeMutes(_ apps: [String]) throws {
        guard !apps.isEmpty else { return }
        try database.write { db in
            for app in apps { try db.execute(sql: "DELETE FROM app_mute WHERE app_key = ?", arguments: [app.lowercased()]) }
        }
    }

    /// Every app in history since `date`, with its count by level and decision, for `focusctl apps`.
    public func appCounts(since date: Date) throws -> [(app: String, level: String, decision: String, count: Int)] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT app, level, decision, count(*) AS n FROM history WHERE received >= ?
                GROUP BY app, level, decision ORDER BY app LIMIT 20000
                """, arguments: [date.timeIntervalSince1970]).compactMap { row in
                guard let app = row.lenient(String.self, "app"), let level = row.lenient(String.self, "level"),
                      let decision = row.lenient(String.self, "decision"), let count = row.lenient(Int.self, "n") else { return nil }
                return (app, level, decision, count)
            }
        }
    }
}

extension Store {
    /// The app keys in history, for telling a mistyped app name (at most `limit`).
    public func knownApps(limit: Int = 5000) throws -> [String] {
        try database.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT app FROM history LIMIT ?", arguments: [limit])
        }
    }
}
