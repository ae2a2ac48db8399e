#!/usr/bin/env python3
"""Checks of rvtrace's exports that need a parser: the Chrome/Perfetto JSON
(parses; spans nest on every hart; the outermost frames cover every
instruction), folded stacks (counts add up), and the report's screenshot
(a PNG decoded here: not blank, the header, flame graph and timeline where
expected).  Each subcommand exits 1 with a message on the first failure."""
import json
import struct
import sys
import zlib


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def chrome(path, insns_by_hart, traps_by_hart):
    with open(path) as f:
        doc = json.load(f)
    ev = doc.get("traceEvents")
    if not isinstance(ev, list) or not ev:
        fail(f"{path}: no traceEvents")
    spans, instants, names = {}, {}, {}
    for e in ev:
        ph = e.get("ph")
        if ph == "X":
            for k in ("ts", "dur", "tid", "name"):
                if k not in e:
                    fail(f"{path}: X event without {k}: {e}")
            spans.setdefault(e["tid"], []).append(e)
        elif ph == "i":
            instants.setdefault(e["tid"], []).append(e)
        elif ph == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
    for hart, insns in insns_by_hart.items():
        if names.get(hart) != f"hart {hart}":
            fail(f"{path}: no thread name for hart {hart} ({names})")
        sp = sorted(spans.get(hart, []), key=lambda e: (e["ts"], -e["dur"], e["args"]["depth"]))
        stack = []
        top_total = 0
        for e in sp:
            start, end = e["ts"], e["ts"] + e["dur"]
            while stack and stack[-1][1] <= start and not (stack[-1][0] == start == end):
                stack.pop()
            if stack:
                ps, pe, pd = stack[-1]
                if end > pe:
                    fail(f"{path}: hart {hart}: span {e['name']} [{start},{end}) overlaps its parent [{ps},{pe})")
                if e["args"]["depth"] != pd + 1:
                    fail(f"{path}: hart {hart}: span {e['name']} at depth {e['args']['depth']} inside one at {pd}")
            elif e["args"]["depth"] != 1:
                fail(f"{path}: hart {hart}: span {e['name']} at depth {e['args']['depth']} has no parent")
            if e["args"]["depth"] == 1:
                top_total += e["dur"]
            stack.append((start, end, e["args"]["depth"]))
        if top_total != insns:
            fail(f"{path}: hart {hart}: the outermost frames cover {top_total} of {insns} instructions")
        traps = sum(1 for e in instants.get(hart, []) if e.get("cat") == "trap")
        if traps != traps_by_hart.get(hart, 0):
            fail(f"{path}: hart {hart}: {traps} trap events, expected {traps_by_hart.get(hart, 0)}")
        print(f"{path}: hart {hart}: {len(sp)} spans nest, cover {insns} instructions, {traps} traps")


def folded(path, total):
    s = 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                fail(f"{path}:{n}: not 'frame;frame count': {line!r}")
            s += int(count)
    if s != total:
        fail(f"{path}: counts add up to {s}, expected {total}")
    print(f"{path}: {n} stacks, {s} instructions")


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail(f"{path}: unexpected PNG format (depth {depth}, colour type {ctype}, interlace {interlace})")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def screenshot(path):
    w, h, bpp, rows = read_png(path)
    colours = set()

    def px(y, x):
        r = rows[y]
        return r[x * bpp], r[x * bpp + 1], r[x * bpp + 2]

    def warm(c):  # the flame graph's hues 0-45
        r, g, b = c
        return r > 150 and r >= g and r - b > 60

    def cool(c):  # the timeline's hues 170-240
        r, g, b = c
        return b - r > 40 and g - r > 10

    # A row belongs to a band of a colour when that colour covers at least 8%
    # of it, spread over at least a quarter of the width, and so do 18 of
    # the 21 rows around it (flame graph and timeline rows are 16 and 11
    # pixels tall with 1-pixel gaps; text, links and table bars are lower).
    warm_ok, cool_ok = [], []
    for y in range(h):
        wx, cx = [], []
        for x in range(0, w, 4):
            c = px(y, x)
            if y % 8 == 0:
                colours.add(c)
            if warm(c):
                wx.append(x)
            if cool(c):
                cx.append(x)
        def band(v):
            return len(v) > w // 4 * 0.08 and v[-1] - v[0] >= w // 4
        warm_ok.append(band(wx))
        cool_ok.append(band(cx))
    def rows_of(ok):
        return [y for y in range(10, h - 10) if sum(ok[y - 10:y + 11]) >= 18]
    flame_rows, cool_rows = rows_of(warm_ok), rows_of(cool_ok)
    if len(colours) < 50:
        fail(f"{path}: {len(colours)} colours: blank or nearly")
    header = sum(1 for x in range(0, w, 8) if px(10, x) == (0x20, 0x30, 0x3f))
    if header < (w // 8) * 0.9:
        fail(f"{path}: no header band at the top ({header} of {w // 8} samples)")
    if len(flame_rows) < 20:
        fail(f"{path}: no flame graph (only {len(flame_rows)} rows with its colours)")
    if len(cool_rows) < 10:
        fail(f"{path}: no timeline (only {len(cool_rows)} rows with its colours)")
    if min(cool_rows) < max(flame_rows):
        fail(f"{path}: the timeline (rows {min(cool_rows)}..{max(cool_rows)}) is not below the flame graph "
             f"(rows {min(flame_rows)}..{max(flame_rows)})")
    print(f"{path}: {w}x{h}, {len(colours)} colours; flame graph rows {min(flame_rows)}-{max(flame_rows)}, "
          f"timeline rows {min(cool_rows)}-{max(cool_rows)}")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "chrome":
        # chrome FILE hart:insns:traps ...
        ins, tr = {}, {}
        for a in sys.argv[3:]:
            hh, i, t = (int(v) for v in a.split(":"))
            ins[hh], tr[hh] = i, t
        chrome(sys.argv[2], ins, tr)
    elif cmd == "folded":
        folded(sys.argv[2], int(sys.argv[3]))
    elif cmd == "screenshot":
        screenshot(sys.argv[2])
    else:
        fail("unknown command " + cmd)
