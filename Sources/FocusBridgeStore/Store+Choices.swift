import FocusBridgeCore
import FocusBridgeTime

/// The person's run-time choices per app, the mutes and the apps asked about Time Sensitive
/// (focusctl(1), APPS and MUTE): small tables, written at once (a choice is rare), read back
/// leniently at start — a row that cannot be used is left out, never trapped on.
extension Store {
    public func appChoices() throws -> AppChoices {
        let entries = try database.statement("SELECT app, key, value, made FROM app_choice").rows { row -> AppChoices.Entry? in
            guard let app = row.string(0), !app.isEmpty,
                  let key = row.string(1).flatMap(AppChoice.Key.init(rawValue:)),
                  let value = row.string(2),
                  case .success(let choice) = AppChoice.parse(key: key, value: value),
                  let made = row.double(3), made.isFinite else { return nil }
            return AppChoices.Entry(app: app, choice: choice, made: Instant(timeIntervalSince1970: made))
        }
        var asked: [String: String] = [:]
        let answers = try database.statement("SELECT app, answer FROM app_asked").rows { row -> (String, String)? in
            guard let app = row.string(0), let answer = row.string(1) else { return nil }
            return (app, answer)
        }
        for (app, answer) in answers { asked[app] = answer }
        return AppChoices(entries, asked: asked)
    }

    public func saveChoice(_ entry: AppChoices.Entry) throws {
        try database.execute("""
            INSERT INTO app_choice (app_key, app, key, value, made) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(app_key, key) DO UPDATE SET app = excluded.app, value = excluded.value, made = excluded.made
            """, [entry.app.lowercased(), entry.app, entry.choice.key.rawValue, entry.choice.value,
                  entry.made.timeIntervalSince1970])
    }

    public func resetChoices(app: String, key: AppChoice.Key?) throws {
        if let key {
            try database.execute("DELETE FROM app_choice WHERE app_key = ? AND key = ?", [app.lowercased(), key.rawValue])
        } else {
            try database.execute("DELETE FROM app_choice WHERE app_key = ?", [app.lowercased()])
        }
    }

    public func noteAsked(app: String, answer: String, at date: Instant) throws {
        try database.execute("""
            INSERT INTO app_asked (app_key, app, answer, at) VALUES (?, ?, ?, ?)
            ON CONFLICT(app_key) DO UPDATE SET answer = excluded.answer, at = excluded.at
            """, [app.lowercased(), app, answer, date.timeIntervalSince1970])
    }

    public func mutes() throws -> MuteList {
        MuteList(try database.statement("SELECT app, until FROM app_mute").rows { row in
            guard let app = row.string(0), !app.isEmpty,
                  let until = row.double(1), until.isFinite else { return nil }
            return MuteList.Mute(app: app, until: Instant(timeIntervalSince1970: until))
        })
    }

    public func saveMute(_ mute: MuteList.Mute) throws {
        try database.execute("""
            INSERT INTO app_mute (app_key, app, until) VALUES (?, ?, ?)
            ON CONFLICT(app_key) DO UPDATE SET app = excluded.app, until = excluded.until
            """, [mute.app.lowercased(), mute.app, mute.until.timeIntervalSince1970])
    }

    public func removeMutes(_ apps: [String]) throws {
        guard !apps.isEmpty else { return }
        try database.transaction {
            let delete = try database.statement("DELETE FROM app_mute WHERE app_key = ?")
            for app in apps { try delete.execute([app.lowercased()]) }
        }
    }

    /// The apps in history since `date` that sent the most (at most `limit`), with their
    /// counts by level and decision, for `focusctl apps`; `app`: that one alone (any case).
    public func appCounts(since date: Instant, limit: Int, app: String? = nil)
        throws -> [(app: String, level: String, decision: String, count: Int)] {
        let read: (Statement) -> (app: String, level: String, decision: String, count: Int)? = { row in
            guard let app = row.string(0), let level = row.string(1),
                  let decision = row.string(2), let count = row.int(3) else { return nil }
            return (app, level, decision, count)
        }
        if let app {
            return try database.statement("""
                SELECT app, level, decision, count(*) AS n FROM history WHERE received >= ? AND app = ? COLLATE NOCASE
                GROUP BY app, level, decision
                """).rows([date.timeIntervalSince1970, app], read)
        }
        return try database.statement("""
            WITH recent AS (SELECT app, level, decision, count(*) AS n FROM history WHERE received >= ?
                            GROUP BY app, level, decision),
                 top AS (SELECT app FROM recent GROUP BY app ORDER BY sum(n) DESC, app LIMIT ?)
            SELECT app, level, decision, n FROM recent WHERE app IN top ORDER BY app
            """).rows([date.timeIntervalSince1970, limit], read)
    }
}

extension Store {
    /// The app as history spells it, if any notification came under that name (the same
    /// spelling first, then any case).
    public func seenApp(_ name: String) throws -> String? {
        try database.strings("SELECT app FROM history WHERE app = ? LIMIT 1", [name]).first
            ?? database.strings("SELECT app FROM history WHERE app = ? COLLATE NOCASE LIMIT 1", [name]).first
    }

    /// The apps that sent last, newest first (at most `limit`): the names a mistyped one is
    /// compared with.
    public func recentApps(limit: Int) throws -> [String] {
        try database.strings("SELECT app FROM history GROUP BY app ORDER BY max(row) DESC LIMIT ?", [limit])
    }

    /// The app names unsandboxed senders sent under each app key since `date`, where the name is
    /// not the key, with how many notifications each (for `focusctl apps`: an `[apps]` table may
    /// name the app by either). Rows history kept no request for, or an unreadable one, give none;
    /// nor do web pages' (the name is their browser's, not their site's).
    public func appNames(since date: Instant) throws -> [(app: String, name: String, count: Int)] {
        try database.statement("""
            SELECT app, name, count(*) FROM (
                SELECT app, CASE WHEN json_valid(request) THEN json_extract(request, '$."app-name"') END AS name,
                       CASE WHEN json_valid(request) THEN json_extract(request, '$."app-source"') END AS source
                FROM history WHERE received >= ? AND request IS NOT NULL AND via IS NULL)
            WHERE name IS NOT NULL AND name != '' AND lower(name) != lower(app)
                  AND source NOT IN ('Flatpak app ID', 'Snap name')
            GROUP BY app, name ORDER BY app LIMIT 20000
            """).rows([date.timeIntervalSince1970]) { row in
            guard let app = row.string(0), let name = row.string(1), let count = row.int(2) else { return nil }
            return (app, name, count)
        }
    }

    /// The browsers web pages' notifications came through under each app key (a site) since
    /// `date`, with how many each (for `focusctl apps`).
    public func appVias(since date: Instant) throws -> [(app: String, via: String, count: Int)] {
        try database.statement("""
            SELECT app, via, count(*) FROM history WHERE received >= ? AND via IS NOT NULL
            GROUP BY app, via ORDER BY app LIMIT 20000
            """).rows([date.timeIntervalSince1970]) { row in
            guard let app = row.string(0), let via = row.string(1), let count = row.int(2) else { return nil }
            return (app, via, count)
        }
    }
}
