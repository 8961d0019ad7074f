"""Seeing and clicking popups on a real screen (test_interop.py): X11 under Xvfb with
ImageMagick's ``import -window root`` and ``xdotool``; Wayland (a headless sway, displays.py)
with ``grim`` and ``vclick``.

Screens are compared as raw RGB (PPM): a popup is where the screen differs from the screen
taken before it was sent; "gone" is the screen equal to that one again. Every wait polls the
screen with a bound (nothing signals a redraw).
"""

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.waiting import pump_for

# A pixel counts as changed when one of its channels moved by more than this: antialiasing
# noise and faint drop shadows stay out of popup boxes, text and borders do not.
CHANGED = 40


# --------------------------------------------------------------------------- images
@dataclass
class Shot:
    """One RGB screenshot (8-bit)."""
    width: int
    height: int
    data: bytes

    @classmethod
    def from_ppm(cls, blob):
        # P6 <w> <h> <maxval> then raw bytes; tokens separated by whitespace, no comments here
        fields, pos = [], 0
        while len(fields) < 4:
            while blob[pos:pos + 1].isspace():
                pos += 1
            start = pos
            while not blob[pos:pos + 1].isspace():
                pos += 1
            fields.append(blob[start:pos])
        pos += 1
        if fields[0] != b"P6" or int(fields[3]) != 255:
            raise ValueError("not an 8-bit binary PPM: %r" % fields)
        w, h = int(fields[1]), int(fields[2])
        data = blob[pos:pos + w * h * 3]
        if len(data) != w * h * 3:
            raise ValueError("short PPM: %d of %d bytes" % (len(data), w * h * 3))
        return cls(w, h, data)

    @classmethod
    def from_png(cls, blob):
        """An 8-bit RGB or RGBA PNG, not interlaced (what rsvg-convert writes), decoded with zlib
        alone; alpha is put over white, as a viewer shows it."""
        import struct
        import zlib
        if blob[:8] != b"\x89PNG\r\n\x1a\n":
            raise ValueError("not a PNG")
        pos, idat, header = 8, b"", None
        while pos < len(blob):
            size, kind = struct.unpack(">I4s", blob[pos:pos + 8])
            payload = blob[pos + 8:pos + 8 + size]
            pos += 12 + size
            if kind == b"IHDR":
                header = struct.unpack(">IIBBBBB", payload)
            elif kind == b"IDAT":
                idat += payload
            elif kind == b"IEND":
                break
        w, h, depth, colour, _, _, interlace = header
        if depth != 8 or colour not in (2, 6) or interlace:
            raise ValueError("not an 8-bit RGB/RGBA PNG without interlace: %r" % (header,))
        bpp = 3 if colour == 2 else 4
        raw, stride = zlib.decompress(idat), w * bpp
        out, prev = bytearray(), bytearray(stride)
        for y in range(h):
            kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                if kind == 1:
                    line[i] = (line[i] + a) & 255
                elif kind == 2:
                    line[i] = (line[i] + b) & 255
                elif kind == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                elif kind == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            prev = line
            if bpp == 3:
                out += line
            else:
                for x in range(w):
                    r, g, bl, al = line[x * 4:x * 4 + 4]
                    out += bytes(((v * al + 255 * (255 - al)) // 255) for v in (r, g, bl))
        return cls(w, h, bytes(out))

    def count(self, rgb):
        """How many pixels are exactly this colour (an (r, g, b) tuple)."""
        pixel = bytes(rgb)
        return sum(1 for i in range(0, len(self.data), 3) if self.data[i:i + 3] == pixel)

    def row(self, y, x0=0, x1=None):
        x1 = self.width if x1 is None else x1
        base = y * self.width * 3
        return self.data[base + x0 * 3: base + x1 * 3]

    def changed_rows(self, other, box=None):
        """{y: [x, …]} of the pixels (inside box, if given) that differ by more than CHANGED."""
        x0, y0, x1, y1 = box or (0, 0, self.width, self.height)
        out = {}
        for y in range(y0, y1):
            a, b = self.row(y, x0, x1), other.row(y, x0, x1)
            if a == b:
                continue
            xs = [x0 + i // 3 for i in range(0, len(a), 3)
                  if max(abs(a[i] - b[i]), abs(a[i + 1] - b[i + 1]), abs(a[i + 2] - b[i + 2])) > CHANGED]
            if xs:
                out[y] = xs
        return out

    def diff(self, other, box=None):
        """(number of changed pixels, bounding box (x0, y0, x1, y1) exclusive, or None)."""
        rows = self.changed_rows(other, box)
        if not rows:
            return 0, None
        xs = [x for v in rows.values() for x in v]
        return len(xs), (min(xs), min(rows), max(xs) + 1, max(rows) + 1)

    def identical(self, other):
        return self.data == other.data

    def bands(self, other, min_gap=4):
        """The vertical runs of changed rows (y0, y1) separated by at least min_gap unchanged
        rows: stacked popups are separate bands, one popup is one."""
        ys = sorted(self.changed_rows(other))
        runs = []
        for y in ys:
            if runs and y - runs[-1][1] < min_gap:
                runs[-1][1] = y + 1
            else:
                runs.append([y, y + 1])
        return [tuple(r) for r in runs]

    def save_png(self, path):
        """Writes a PNG (zlib only) so a person can look at what a test saw."""
        import struct
        import zlib
        raw = b"".join(b"\x00" + self.row(y) for y in range(self.height))

        def chunk(kind, payload):
            c = struct.pack(">I", len(payload)) + kind + payload
            return c + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)

        png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
               + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
        Path(path).write_bytes(png)
        return path


def center(box):
    x0, y0, x1, y1 = box
    return (x0 + x1) // 2, (y0 + y1) // 2


# --------------------------------------------------------------------------- screens
class Screen:
    """Screenshots and clicks on one display. `env` holds DISPLAY or WAYLAND_DISPLAY."""

    kind = None

    def __init__(self, env, shots_dir):
        self.env = env
        self.shots_dir = Path(shots_dir)
        self.shots_dir.mkdir(parents=True, exist_ok=True)
        self._n = 0

    def grab(self):
        r = subprocess.run(self.grab_argv(), env=self.env, capture_output=True, timeout=10)
        if r.returncode != 0:
            raise RuntimeError("%s failed: %s" % (self.grab_argv()[0], r.stderr.decode(errors="replace")[-500:]))
        return Shot.from_ppm(r.stdout)

    def keep(self, shot, label):
        """Saves a shot as PNG in the test's folder (looked at when a test fails)."""
        self._n += 1
        return shot.save_png(self.shots_dir / ("%02d-%s.png" % (self._n, label)))

    def wait_for(self, predicate, timeout, what, interval=0.1):
        """Grabs the screen until predicate(shot) is true (bounded); returns (shot, value).
        Fails the test with `what` (a string, or a function called then) and the last screen
        saved as PNG."""
        deadline = time.monotonic() + timeout
        while True:
            shot = self.grab()
            value = predicate(shot)
            if value:
                return shot, value
            if time.monotonic() >= deadline:
                path = self.keep(shot, "timeout")
                what = what() if callable(what) else what
                pytest.fail("%s within %.0f s (last screen: %s)" % (what, timeout, path), pytrace=False)
            pump_for(interval)

    def wait_popup(self, base, timeout=10, what="no popup was drawn", min_pixels=200):
        """Waits until the screen differs from `base` by at least min_pixels and is the same
        on two grabs in a row (drawn, not mid-animation); returns (shot, box)."""
        last = [None]

        def drawn(shot):
            count, box = shot.diff(base)
            prev, last[0] = last[0], shot
            if count >= min_pixels and prev is not None and prev.identical(shot):
                return box
            return None

        return self.wait_for(drawn, timeout, what)

    def wait_back_to(self, base, timeout=5, what="the popup did not go away"):
        """Waits until the screen is exactly `base` again."""
        return self.wait_for(lambda s: s.identical(base), timeout, what)[0]


class XScreen(Screen):
    kind = "x11"

    def grab_argv(self):
        return ["import", "-window", "root", "-depth", "8", "ppm:-"]

    def click(self, x, y, button="left"):
        number = {"left": "1", "middle": "2", "right": "3"}[button]
        r = subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", number],
                           env=self.env, capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, "xdotool failed: %s" % r.stderr
        # the pointer leaves the popups' corner: no hover effect on the next popup
        subprocess.run(["xdotool", "mousemove", "640", "790"], env=self.env, capture_output=True, timeout=10)


class WaylandScreen(Screen):
    kind = "wayland"

    def __init__(self, env, shots_dir, vclick):
        """vclick: the built binary (a Path), or why it could not be built (a str)."""
        super().__init__(env, shots_dir)
        self.vclick = vclick

    def grab_argv(self):
        return ["grim", "-t", "ppm", "-"]

    def click(self, x, y, button="left"):
        if not isinstance(self.vclick, Path):
            pytest.skip("no clicks on sway: vclick (../shared/tools/vclick): %s" % self.vclick)
        r = subprocess.run([str(self.vclick), str(x), str(y), button], env=self.env,
                           capture_output=True, text=True, timeout=15)
        assert r.returncode == 0, "vclick failed: %s" % r.stderr


def real_imagemagick():
    """ImageMagick's import (the `convert` on PATH may be a stand-in that has no import)."""
    return shutil.which("import") is not None
