/// Where the control interface lives (dbus/org.focusbridge.Control1.xml): what focus-bridge
/// serves and focusctl calls, named once.
public enum ControlNames {
    public static let busName = "org.focusbridge.FocusBridge"
    public static let path = "/org/focusbridge/FocusBridge"
    public static let interface = "org.focusbridge.Control1"
    /// The prefix of the interface's own errors.
    public static let errorPrefix = "org.focusbridge.Error."
    public static let invalidConfig = errorPrefix + "InvalidConfig"
    public static let invalidRequest = errorPrefix + "InvalidRequest"
}
