"""The bridge's configuration file, as the tests write it."""

from pathlib import Path


def config_file(tmp_path):
    """Where the bridge of bridge_factory reads its configuration by default
    ($XDG_CONFIG_HOME/focus-bridge/config.toml with XDG_CONFIG_HOME=tmp/config)."""
    return Path(tmp_path) / "config" / "focus-bridge" / "config.toml"


def write_config(tmp_path, text):
    path = config_file(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def replace_file(path, text):
    """Save the way editors do: write a new file, then rename it over the old one."""
    path = Path(path)
    tmp = path.with_name("." + path.name + ".new")
    tmp.write_text(text)
    tmp.replace(path)
