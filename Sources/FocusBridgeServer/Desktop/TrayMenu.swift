import FocusBridgeCore
import FocusBridgeDBus

/// The tray switch's menu: `com.canonical.dbusmenu` version 3 at /MenuBar, as libdbusmenu
/// (waybar, swaybar's hosts, GNOME's AppIndicator extension) and KDE's tray read it. One level:
/// the root (ID 0) and `TrayModel.items`.
extension Tray {
    static let menuVersion: UInt32 = 3
    /// Events and IDs a client may send at once (EventGroup, AboutToShowGroup, GetGroupProperties).
    static let maxGroup = 256

    var menuProperties: [(key: String, value: Variant)] {
        [("Version", .uint32(Self.menuVersion)), ("TextDirection", .string("ltr")), ("Status", .string("normal")),
         ("IconThemePath", .strings([]))]
    }

    func menuCall(_ call: VariantCall) {
        if call.interfaceName == "org.freedesktop.DBus.Properties" {
            return propertiesCall(call, menuProperties)
        }
        let arguments = call.parameters
        switch call.methodName {
        case "GetLayout":
            let parent = arguments.child(0).int32 ?? 0
            let depth = arguments.child(1).int32 ?? -1
            // The names are a hint (those the client is interested in): every property is sent,
            // so that the items arrive whole in one reply (libdbusmenu asks for label and type
            // only, and would have to fetch the toggles with GetGroupProperties).
            guard let layout = layout(parent, depth: depth, names: []) else { return unknownItem(call, parent) }
            call.reply(.tuple([.uint32(revision), layout]))
        case "GetGroupProperties":
            let ids = (Self.first(arguments.child(0)).compactMap(\.int32))
            let names = Set(arguments.child(1).strings ?? [])
            let wanted = ids.isEmpty ? [0] + model.items.map(\.id) : Array(ids)
            let entries = wanted.compactMap { id in
                properties(of: id, names: names).map { Variant.tuple([.int32(id), .dictionary($0)]) }
            }
            call.reply(.tuple([.array(of: "(ia{sv})", entries)]))
        case "GetProperty":
            let id = arguments.child(0).int32 ?? -1
            guard let name = arguments.child(1).string, let value = properties(of: id, names: [name])?.first?.value else {
                return unknownItem(call, id)
            }
            call.reply(.tuple([.boxed(value)]))
        case "Event":
            let id = arguments.child(0).int32 ?? -1
            guard id == 0 || model.item(id) != nil else { return unknownItem(call, id) }
            event(id, arguments.child(1).string ?? "")
            call.reply()
        case "EventGroup":
            var errors: [Variant] = []
            for entry in Self.first(arguments.child(0)) {
                let id = entry.child(0).int32 ?? -1
                if id == 0 || model.item(id) != nil { event(id, entry.child(1).string ?? "") } else { errors.append(.int32(id)) }
            }
            call.reply(.tuple([.array(of: "i", errors)]))
        case "AboutToShow":
            // The menu is always up to date: nothing to fetch first.
            call.reply(.tuple([.bool(false)]))
        case "AboutToShowGroup":
            let errors = Self.first(arguments.child(0)).compactMap(\.int32)
                .filter { $0 != 0 && model.item($0) == nil }.map(Variant.int32)
            call.reply(.tuple([.array(of: "i", []), .array(of: "i", errors)]))
        default:
            call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.methodName)"))
        }
    }

    /// The first `maxGroup` elements of an array a client sent (the rest are not even read).
    static func first(_ array: Variant) -> [Variant] {
        (0..<min(array.childCount, maxGroup)).map(array.child)
    }

    private func unknownItem(_ call: VariantCall, _ id: Int32) {
        call.fail(DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "no menu item \(id)"))
    }

    private func event(_ id: Int32, _ kind: String) {
        guard kind == "clicked", let command = model.item(id)?.command else { return }
        perform(command)
    }

    /// `(ia{sv}av)` for `id` with its children down to `depth` (-1: all).
    private func layout(_ id: Int32, depth: Int32, names: Set<String>) -> Variant? {
        guard let properties = properties(of: id, names: names) else { return nil }
        let children: [Variant] = id == 0 && depth != 0
            ? model.items.compactMap { item in layout(item.id, depth: 0, names: names).map(Variant.boxed) }
            : []
        return .tuple([.int32(id), .dictionary(properties), .array(of: "v", children)])
    }

    /// The properties of item `id` (only `names`, when given); nil for an unknown ID.
    private func properties(of id: Int32, names: Set<String>) -> [(key: String, value: Variant)]? {
        var all: [(key: String, value: Variant)]
        if id == 0 {
            all = [("children-display", .string("submenu"))]
        } else if let item = model.item(id) {
            all = Self.properties(of: item)
        } else {
            return nil
        }
        if !names.isEmpty { all = all.filter { names.contains($0.key) } }
        return all
    }

    static func properties(of item: TrayModel.Item) -> [(key: String, value: Variant)] {
        if item.isSeparator { return [("type", .string("separator")), ("visible", .bool(true))] }
        var all: [(key: String, value: Variant)] = [("label", .string(item.label)), ("enabled", .bool(item.enabled)),
                                                     ("visible", .bool(true))]
        if item.toggle != .none {
            all += [("toggle-type", .string(item.toggle.rawValue)), ("toggle-state", .int32(item.isOn ? 1 : 0))]
        }
        return all
    }

    /// Tells menu clients what changed: the changed items' properties, or the whole layout
    /// when the items themselves are others (a Focus added or renamed on reload).
    func menuChanged(from previous: TrayModel) {
        let path = Self.menuPath, interface = Self.menuInterface
        guard previous.hasSameLayout(as: model) else {
            revision &+= 1
            bus.emitSignal(destination: nil, path: path, interface: interface, name: "LayoutUpdated",
                           .tuple([.uint32(revision), .int32(0)]))
            return
        }
        let changed = model.items.filter { item in previous.item(item.id) != item }
        guard !changed.isEmpty else { return }
        revision &+= 1
        let updated = changed.map { Variant.tuple([.int32($0.id), .dictionary(Self.properties(of: $0))]) }
        bus.emitSignal(destination: nil, path: path, interface: interface, name: "ItemsPropertiesUpdated",
                       .tuple([.array(of: "(ia{sv})", updated), .array(of: "(ias)", [])]))
    }
}
