import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The tray switch: a StatusNotifierItem at /StatusNotifierItem with its dbusmenu at /MenuBar
/// (`TrayMenu.swift`), registered with `org.kde.StatusNotifierWatcher` whenever a watcher is on
/// the bus and `[general] tray` is true. What it shows is a `TrayModel`; its menu does what
/// focusctl does, through the same methods Control1 calls.
///
/// It registers by its object path, on the bridge's own connection (as libappindicator does;
/// GNOME's AppIndicator extension sometimes loses an item registered by a well-known name
/// whose owner it is still resolving). Turned off while running, the item says `Passive`,
/// which trays hide.
final class Tray {
    static let itemPath = "/StatusNotifierItem"
    static let menuPath = "/MenuBar"
    static let itemInterface = "org.kde.StatusNotifierItem"
    static let menuInterface = "com.canonical.dbusmenu"
    static let watcherName = "org.kde.StatusNotifierWatcher"
    static let watcherPath = "/StatusNotifierWatcher"

    let bus: VariantConnection
    let bridge: Bridge
    let focus: FocusController
    let logger: Logger
    /// `focusctl reload`: loads the configuration again; nil when it loaded.
    let reload: () -> ConfigError?

    private(set) var model: TrayModel
    /// The menu's layout revision, raised at every change of the items.
    var revision: UInt32 = 1
    private var watcher: String?
    /// The watcher the item is registered with (a new watcher needs a new registration).
    private var registeredWith: String?
    private var exported = false
    private var scheduled = false
    /// The `Status` last announced (`NewStatus`).
    private var shownStatus = "Active"

    init(bus: VariantConnection, bridge: Bridge, focus: FocusController, logger: Logger,
         reload: @escaping () -> ConfigError?) {
        self.bus = bus
        self.bridge = bridge
        self.focus = focus
        self.logger = logger
        self.reload = reload
        model = TrayModel(Self.state(bridge), now: bridge.clock.now, timeZone: focus.timeZone)
    }

    static func state(_ bridge: Bridge) -> TrayModel.State {
        TrayModel.State(focusNames: bridge.settings.profiles.map(\.name), activeFocus: bridge.activeFocus?.name,
                        focusUntil: bridge.activeFocus?.until, silent: bridge.silent,
                        heldFocus: bridge.heldCount(.heldFocus), heldSummary: bridge.heldCount(.heldSummary),
                        snoozed: bridge.snoozedCount, mutes: bridge.preferences.mutes.active(at: bridge.clock.now))
    }

    private var wanted: Bool { bridge.settings.general.tray }

    /// Watches for a StatusNotifierWatcher (a tray appearing, leaving, restarting).
    func start() {
        bus.watchName(Self.watcherName) { [weak self] owner in
            guard let self else { return }
            let appeared = owner != nil && owner != watcher
            watcher = owner
            if appeared { update() }
        }
    }

    /// Something the tray shows may have changed (state, configuration): updated once per
    /// main-loop pass.
    func refresh() {
        guard !scheduled else { return }
        scheduled = true
        MainLoop.whenIdle { [weak self] in
            guard let self else { return }
            scheduled = false
            show(TrayModel(Self.state(bridge), now: bridge.clock.now, timeZone: focus.timeZone))
            update()
        }
    }

    /// `Active`, or `Passive` once `[general] tray` was turned off (trays hide passive items).
    var status: String { wanted ? "Active" : "Passive" }

    /// Registers with the watcher, as `[general] tray` says; says `Passive` when turned off.
    private func update() {
        if exported, status != shownStatus {
            shownStatus = status
            logger.info("the tray switch is \(wanted ? "on" : "off") ([general] tray)")
            bus.emitSignal(destination: nil, path: Self.itemPath, interface: Self.itemInterface, name: "NewStatus",
                           .tuple([.string(status)]))
        }
        guard wanted, let watcher else { return }
        exportOnce()
        if registeredWith != watcher { register(with: watcher) }
    }

    private func register(with watcher: String) {
        registeredWith = watcher
        bus.call(watcher, Self.watcherPath, Self.watcherName, "RegisterStatusNotifierItem",
                 .tuple([.string(Self.itemPath)]), timeoutMilliseconds: 10_000) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success: logger.info("the tray switch is registered with the tray (\(watcher))")
            case .failure(let error):
                // Not asked again until another watcher appears (no warning at every change).
                logger.warning("the tray (\(watcher)) refused the tray switch: \(error.message)")
            }
        }
    }

    private func exportOnce() {
        guard !exported else { return }
        exported = true
        do {
            try bus.export(path: Self.itemPath, interfaceXML: EmbeddedFiles.statusNotifierItemXML,
                           interface: Self.itemInterface) { [weak self] call in
                self?.fromOwnUser(call) { self?.itemCall(call) }
            }
            try bus.export(path: Self.menuPath, interfaceXML: EmbeddedFiles.dbusMenuXML,
                           interface: Self.menuInterface) { [weak self] call in
                self?.fromOwnUser(call) { self?.menuCall(call) }
            }
        } catch {
            logger.error("the tray switch cannot be exported: \(error.message)")
        }
    }

    /// Runs `body` for a call from the bridge's own user; another user's connection (on a bus
    /// that admits others) is refused, as `Control1` refuses it: the tooltip and the menu tell
    /// the Focus, the mutes and what is held, and the menu changes them.
    private func fromOwnUser(_ call: VariantCall, _ body: @escaping () -> Void) {
        bridge.senders.withSender(call.sender) { sender in
            guard sender.userID == getuid() else {
                return call.fail(DBusError(name: "org.freedesktop.DBus.Error.AccessDenied",
                                           message: "focus-bridge's tray switch answers its own user only"))
            }
            body()
        }
    }

    // MARK: The item

    /// Sends the signals for what changed between the shown model and `next`.
    private func show(_ next: TrayModel) {
        let previous = model
        model = next
        guard exported, previous != next else { return }
        let path = Self.itemPath, interface = Self.itemInterface
        if previous.iconName != next.iconName {
            bus.emitSignal(destination: nil, path: path, interface: interface, name: "NewIcon", .tuple([]))
        }
        if previous.title != next.title {
            bus.emitSignal(destination: nil, path: path, interface: interface, name: "NewTitle", .tuple([]))
        }
        if previous.tooltip != next.tooltip || previous.title != next.title {
            bus.emitSignal(destination: nil, path: path, interface: interface, name: "NewToolTip", .tuple([]))
        }
        menuChanged(from: previous)
    }

    private func itemCall(_ call: VariantCall) {
        if call.interfaceName == "org.freedesktop.DBus.Properties" {
            return propertiesCall(call, itemProperties)
        }
        // Trays that show the dbusmenu themselves (waybar, KDE, GNOME's extension) open it on a
        // click (ItemIsMenu) and call none of these; a tray that cannot (swaybar 1.7) calls
        // Activate or ContextMenu on a click, SecondaryActivate on a middle click: the switch then
        // is Do Not Disturb (or the Focus that is on) and silent mode.
        switch call.methodName {
        case "Activate", "ContextMenu":
            perform(bridge.activeFocus == nil ? .focusOn(FocusProfile.doNotDisturbName) : .focusOff)
        case "SecondaryActivate":
            perform(.toggleSilent)
        default:
            break
        }
        call.reply()
    }

    var itemProperties: [(key: String, value: Variant)] {
        let pixmap = TrayIcon.pixmaps(model.look)
        return [
            ("Category", .string("SystemServices")),
            ("Id", .string("focus-bridge")),
            ("Title", .string("FocusBridge: \(model.title)")),
            ("Status", .string(status)),
            ("WindowId", .int32(0)),
            ("IconThemePath", .string("")),
            ("IconName", .string(model.iconName)),
            ("IconPixmap", pixmap),
            ("OverlayIconName", .string("")),
            ("OverlayIconPixmap", TrayIcon.none),
            ("AttentionIconName", .string("")),
            ("AttentionIconPixmap", TrayIcon.none),
            ("AttentionMovieName", .string("")),
            ("ToolTip", .tuple([.string(model.iconName), TrayIcon.none, .string("FocusBridge: \(model.title)"),
                                .string(model.tooltip)])),
            ("ItemIsMenu", .bool(true)),
            ("Menu", .objectPath(Self.menuPath)),
        ]
    }

    /// `org.freedesktop.DBus.Properties` Get and GetAll (`VariantConnection.export` has checked the
    /// name and the access against the XML); Set is refused (every property is read-only).
    func propertiesCall(_ call: VariantCall, _ properties: [(key: String, value: Variant)]) {
        switch call.methodName {
        case "Get":
            guard let name = call.parameters.child(1).string, let value = properties.first(where: { $0.key == name })?.value else {
                return call.fail(DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "no such property"))
            }
            call.reply(.tuple([.boxed(value)]))
        case "GetAll":
            call.reply(.tuple([.dictionary(properties)]))
        default:
            call.fail(DBusError(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "the properties are read-only"))
        }
    }

    // MARK: Commands

    /// Does what the menu item says, as focusctl would (the calls reach here from the bridge's
    /// own user only: `fromOwnUser`).
    func perform(_ command: TrayModel.Command) {
        do {
            switch command {
            case .focusOn(let name): _ = try focus.turnOn(name, duration: nil, until: nil)
            case .focusOff: focus.turnOff()
            case .toggleSilent: try bridge.setSilent(!bridge.silent)
            case .deliverSummary: bridge.deliverSummary()
            case .reload:
                if reload() == nil { focus.evaluate() }
            }
        } catch {
            logger.error("the tray menu could not do that: \(error)")
        }
        refresh()
    }
}

/// The icon drawn as pixels, for hosts that cannot find the icon name in their theme.
enum TrayIcon {
    static let size = 24
    static var none: Variant { .array(of: "(iiay)", []) }

    static func pixmaps(_ look: TrayModel.Look) -> Variant {
        .array(of: "(iiay)", [.tuple([.int32(Int32(size)), .int32(Int32(size)), .byteArray(pixels(look))])])
    }

    /// ARGB32 in network byte order, row by row.
    static func pixels(_ look: TrayModel.Look) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size * size * 4)
        let centre = Double(size - 1) / 2
        for y in 0..<size {
            for x in 0..<size {
                let dx = Double(x) - centre, dy = Double(y) - centre
                let distance = (dx * dx + dy * dy).squareRoot()
                var colour: (UInt8, UInt8, UInt8)?
                switch look {
                case .focus: // a crescent moon
                    let ox = dx - 5, oy = dy + 4
                    if distance <= 10.5, (ox * ox + oy * oy).squareRoot() > 8 { colour = (0x9B, 0x7B, 0xE8) }
                case .silent: // a disc, struck through
                    if distance <= 10.5 { colour = abs(dx - dy) < 2 ? (0xFF, 0xFF, 0xFF) : (0xE0, 0x5A, 0x3A) }
                case .none: // a ring with a dot
                    if (7.5...10.5).contains(distance) || distance <= 3 { colour = (0xC8, 0xC8, 0xC8) }
                }
                if let (r, g, b) = colour { bytes += [0xFF, r, g, b] } else { bytes += [0, 0, 0, 0] }
            }
        }
        return bytes
    }
}
