#!/usr/bin/env python3
"""Draws --vyre-simulate traces as one SVG: for each trace (a labelled
schedule), one row per stream, one bar per op, on a shared time axis.

Usage: timeline.py OUT.svg LABEL=TRACE.json [LABEL=TRACE.json ...]
"""

import json
import sys

ROW, GAP, LEFT, WIDTH = 22, 18, 170, 900
COLORS = {"vyre.dispatch": "#4c78a8", "vyre.copy_h2d": "#f58518",
          "vyre.copy_h2d_async": "#f58518", "vyre.copy_d2h": "#54a24b"}


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("--help", "-h"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("--help", "-h")
                 else 2)
    out, specs = sys.argv[1], sys.argv[2:]
    schedules = []
    end = 0.0
    for spec in specs:
        label, path = spec.split("=", 1)
        events = json.load(open(path))["traceEvents"]
        names = {e["tid"]: e["args"]["name"] for e in events
                 if e.get("ph") == "M" and e.get("pid") == 1
                 and e["name"] == "thread_name"}
        bars = [e for e in events if e.get("ph") == "X" and e["pid"] == 1]
        # The simulator's makespan (an instant event), which the host may
        # set after the last device op; older traces lack it.
        ends = [e["args"]["makespan_us"] for e in events
                if e.get("ph") == "i" and e.get("pid") == 1
                and "makespan_us" in e.get("args", {})]
        makespan = ends[0] if ends else max(
            [0.0] + [b["ts"] + b["dur"] for b in bars])
        end = max([end, makespan] + [b["ts"] + b["dur"] for b in bars])
        schedules.append((label, names, bars, makespan))
    scale = WIDTH / end
    rows = sum(len(names) for _, names, _, _ in schedules)
    height = rows * ROW + len(schedules) * (GAP + ROW) + 40
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (LEFT + WIDTH + 60,
                                                          height),
           '<rect width="100%" height="100%" fill="white"/>']
    y = 10
    for label, names, bars, makespan in schedules:
        svg.append('<text x="4" y="%d" font-weight="bold">%s: makespan '
                   '%.0f us</text>' % (y + 14, label, makespan))
        y += ROW
        for tid in sorted(names):
            svg.append('<text x="14" y="%d">%s</text>' % (y + 15, names[tid]))
            for b in (b for b in bars if b["tid"] == tid):
                x = LEFT + b["ts"] * scale
                w = max(1.0, b["dur"] * scale)
                svg.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" '
                           'fill="%s" stroke="white"><title>%s %.1f us'
                           '</title></rect>' % (x, y + 2, w, ROW - 4,
                                                COLORS.get(b["name"], "#999"),
                                                b["name"], b["dur"]))
            y += ROW
        y += GAP
    svg.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>'
               % (LEFT, y, LEFT + WIDTH, y))
    for i in range(6):
        t = end * i / 5
        svg.append('<text x="%.0f" y="%d" text-anchor="middle">%.0f us</text>'
                   % (LEFT + t * scale, y + 16, t))
    svg.append('<text x="%d" y="%d">orange: H2D copy, blue: kernel, green: '
               'D2H copy</text>' % (LEFT, y + 32))
    svg.append("</svg>")
    open(out, "w").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
