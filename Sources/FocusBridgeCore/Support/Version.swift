/// FocusBridge's version, reported by `GetServerInformation`, `--version` and `focusctl status`.
public let focusBridgeVersion = "0.1.0"
