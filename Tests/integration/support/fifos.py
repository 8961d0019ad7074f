"""FIFOs put where the bridge expects a file (a sandbox's /.flatpak-info, the share folder's
temporary name, the configuration), and let go of when a test ends."""

import os
import stat


def release(path):
    """Opens the FIFO at `path` for reading and writing, and closes it: a process stuck opening
    it (to read or to write) goes on, so a bridge found blocked does not hang the teardown.
    Nothing is done when `path` is no longer a FIFO."""
    try:
        if not stat.S_ISFIFO(os.lstat(path).st_mode):
            return
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    except OSError:
        return
    os.close(fd)
