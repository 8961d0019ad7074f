#if canImport(Glibc)
import Glibc
#endif

/// The process's environment and identity: variables, the home folder, the process ID.
public enum Environment {
    /// The variable's value, nil when unset; bytes that are not UTF-8 are repaired (U+FFFD),
    /// as in ProcessInfo's environment. `EnvironmentPaths` refuses them instead where a path
    /// is made of them.
    public static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Every variable, as `ProcessInfo.processInfo.environment` gave them (the first of a name
    /// given twice, as `getenv` reads it; an entry without `=` is left out).
    public static var all: [String: String] {
        var result: [String: String] = [:]
        // After clearenv() `environ` is NULL, whatever the type Swift gives it says.
        guard Int(bitPattern: environ) != 0 else { return result }
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }

    /// `HOME` when set and not empty, else the home folder of the user in the password
    /// database, else "/" (as NSHomeDirectory()).
    public static var homeDirectory: String {
        if let home = variable("HOME"), !home.isEmpty { return home }
        return homeDirectory(ofUserID: geteuid()) ?? "/"
    }

    /// The home folder of the user with that name, from the password database.
    public static func homeDirectory(ofUser name: String) -> String? {
        lookUp { getpwnam_r(name, &$0, $1, $2, &$3) }
    }

    static func homeDirectory(ofUserID id: uid_t) -> String? {
        lookUp { getpwuid_r(id, &$0, $1, $2, &$3) }
    }

    private static func lookUp(
        _ call: (inout passwd, UnsafeMutablePointer<CChar>, Int, inout UnsafeMutablePointer<passwd>?) -> Int32
    ) -> String? {
        var record = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = buffer.withUnsafeMutableBufferPointer { call(&record, $0.baseAddress!, $0.count, &found) }
        guard status == 0, found != nil, let directory = record.pw_dir else { return nil }
        return String(cString: directory)
    }

    /// This process's ID.
    public static var processID: Int32 { getpid() }
}
