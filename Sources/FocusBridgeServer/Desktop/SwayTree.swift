import FocusBridgeCore
import FocusBridgeJSON

/// Reads sway's and i3's `GET_TREE` answer (their IPC, `sway-ipc(7)`) into a `WindowState`: the
/// focused window and a visible fullscreen one. Pure; unit-tested on trees sway wrote.
public enum SwayTree {
    /// The state in `json`, or nil when it is not a tree.
    public static func state(_ json: [UInt8]) -> WindowState? {
        guard let root = try? JSONParser.parse(json), root.isObject else { return nil }
        var focused: FocusedWindow?
        var fullscreen: FocusedWindow?
        var budget = 100_000  // nodes: a tree is never this big; a hostile one stops here
        // Recursion as deep as the JSON nests: bounded by the parser's limit.
        func walk(_ node: JSONValue, visible: Bool) {
            budget -= 1
            guard budget > 0 else { return }
            let isWindow = node["app_id"] != nil || node["window_properties"] != nil || node["window"]?.intValue != nil
            let nodeVisible = node["visible"]?.boolValue ?? visible
            if isWindow {
                let window = Self.window(node)
                if node["focused"]?.boolValue == true { focused = window }
                if window.fullscreen && nodeVisible && fullscreen == nil { fullscreen = window }
            }
            for key in ["nodes", "floating_nodes"] {
                // A list with anything but nodes in it is no list of nodes.
                guard let children = node[key]?.arrayValue, children.allSatisfy(\.isObject) else { continue }
                for child in children { walk(child, visible: nodeVisible) }
            }
        }
        walk(root, visible: true)
        return WindowState(focused: focused, fullscreen: fullscreen)
    }

    static func window(_ node: JSONValue) -> FocusedWindow {
        let properties = node["window_properties"]
        let names = [node["app_id"]?.stringValue, properties?["instance"]?.stringValue, properties?["class"]?.stringValue]
            .compactMap { $0 }
        let pid = node["pid"]?.intValue.flatMap { UInt32(exactly: $0) }
        let mode = node["fullscreen_mode"]?.intValue ?? 0
        return FocusedWindow(names: names, processID: pid, fullscreen: mode != 0)
    }
}

/// Hyprland's event socket (`socket2`): lines `EVENT>>DATA`. The bridge reads `activewindow`
/// (class,title) and `fullscreen` (1 or 0) and keeps the state. Pure.
public struct HyprlandEvents: Equatable, Sendable {
    public private(set) var state = WindowState()

    public init() {}

    /// Takes one line; true when the state changed.
    @discardableResult
    public mutating func take(_ line: String) -> Bool {
        guard let range = line.firstRange(of: ">>") else { return false }
        let event = line[..<range.lowerBound]
        let data = String(line[range.upperBound...])
        let before = state
        switch event {
        case "activewindow":
            let windowClass = String(data.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            let fullscreen = state.focused?.fullscreen ?? false
            state = WindowState(focused: windowClass.isEmpty ? nil : FocusedWindow(names: [windowClass], fullscreen: fullscreen))
        case "fullscreen":
            guard var window = state.focused else { return false }
            window.fullscreen = data == "1"
            state = WindowState(focused: window)
        default:
            return false
        }
        return state != before
    }
}
