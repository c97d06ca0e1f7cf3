#!/usr/bin/env python3
"""Line coverage of core/ and server/ from a --coverage build's gcov data (make coverage).

    coverage.py BUILD_DIR [--files]
        prints the lines run over the lines gcov counts, per folder (core/util, core/spec, ...,
        server/io, ...), per tree and, with --files, per file
"""
import os
import re
import subprocess
import sys


def file_coverage(build, src):
    """(run, total) lines of src (a path like core/util/lie.c) from its .gcda, or None."""
    obj_dir = os.path.join(build, os.path.dirname(src))
    base = os.path.splitext(os.path.basename(src))[0]
    if not os.path.exists(os.path.join(obj_dir, base + ".gcno")):
        return None
    if not os.path.exists(os.path.join(obj_dir, base + ".gcda")):
        return 0, count_lines(obj_dir, src)
    out = subprocess.run(["gcov", "-n", "-o", obj_dir, src], capture_output=True, text=True).stdout
    # "File 'core/util/lie.c'\nLines executed:97.30% of 185"
    for m in re.finditer(r"File '([^']+)'\nLines executed:([\d.]+)% of (\d+)", out):
        if os.path.normpath(m.group(1)) == os.path.normpath(src):
            total = int(m.group(3))
            return round(float(m.group(2)) * total / 100), total
    return None


def count_lines(obj_dir, src):
    """Lines gcov would count in a file never run: from its notes alone (gcov -n on .gcno)."""
    out = subprocess.run(["gcov", "-n", "-o", obj_dir, src], capture_output=True, text=True).stdout
    m = re.search(r"File '" + re.escape(src) + r"'\nLines executed:[\d.]+% of (\d+)", out)
    return int(m.group(1)) if m else 0


def main():
    build = sys.argv[1]
    per_file = "--files" in sys.argv
    rows = {}
    for tree in ("core", "server"):
        for d, _, files in sorted(os.walk(tree)):
            for f in sorted(files):
                if f.endswith(".c"):
                    src = os.path.join(d, f)
                    c = file_coverage(build, src)
                    if c and c[1]:
                        rows[src] = c
    folders = {}
    for src, (run, total) in rows.items():
        for key in (os.path.dirname(src), src.split("/")[0]):
            r, t = folders.get(key, (0, 0))
            folders[key] = (r + run, t + total)
    if per_file:
        for src, (run, total) in sorted(rows.items()):
            print(f"{100.0 * run / total:5.1f} %  {run:5d} / {total:5d}  {src}")
    for key, (run, total) in sorted(folders.items()):
        print(f"{100.0 * run / total:5.1f} %  {run:6d} / {total:6d}  {key}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
