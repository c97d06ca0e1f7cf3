#!/usr/bin/env python3
"""The daemon's rooms, checked from the build (make test-arch).

server/ is in rooms by job (its folders), each calling only the rooms before it in ORDER. No two
rooms may need each other through any chain of calls, and no two files of server/ either: a
cycle is a module boundary drawn in the wrong place. Files at server/'s root (room ".") and
rooms not in ORDER are held to the cycle rule alone. Calls are read from the objects'
symbols (nm), as check_layers.py reads core's. server/front/ is left out: its files stand in
for rodd-full's in the light binary and define the same symbols.

    check_rooms.py BUILD_DIR [--graph] [--root DIR]
        exit 1 with every cycle named; --graph prints the room graph (room -> rooms it calls,
        with the number of file edges) first; --root: the source tree (default: this
        checkout; tests/arch/run.sh points it at small trees with a cycle each)
"""
import os
import sys

from check_layers import cycles, symbols

ORDER = ["util", "io", "cli", "session", "daemon", "stream", "service", "http", "process"]


def server_units(root):
    """server/ROOM/NAME.c (or server/NAME.c, room "."), front/ left out."""
    out = {}
    top = os.path.join(root, "server")
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x != "front")
        for f in sorted(files):
            if f.endswith(".c"):
                rel = os.path.relpath(os.path.join(d, f), root)
                out[rel[:-2]] = os.path.dirname(os.path.relpath(os.path.join(d, f), top)) or "."
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if "--root" in sys.argv:
        root = sys.argv[sys.argv.index("--root") + 1]
    build = sys.argv[1]
    units = server_units(root)
    problems, owner, needs = [], {}, {}
    for unit in units:
        obj = os.path.join(build, unit + ".o")
        if not os.path.exists(obj):
            problems.append(f"{obj}: missing (build rodd-full first)")
            continue
        defined, needs[unit] = symbols(obj)
        for s in defined:
            owner[s] = unit
    files = {u: {owner[s] for s in syms if s in owner and owner[s] != u} for u, syms in needs.items()}
    rooms, weight = {}, {}
    for u, callees in files.items():
        rooms.setdefault(units[u], set())
        for c in callees:
            if units[c] != units[u]:
                rooms[units[u]].add(units[c])
                weight[units[u], units[c]] = weight.get((units[u], units[c]), 0) + 1

    if "--graph" in sys.argv:
        for r in sorted(rooms):
            print(f"{r} -> " + " ".join(f"{c}({weight[r, c]})" for c in sorted(rooms[r])))
        sys.stdout.flush()

    rank = {r: i for i, r in enumerate(ORDER)}
    for r in sorted(rooms):
        for c in sorted(rooms[r]):
            if r in rank and c in rank and rank[c] > rank[r]:
                problems.append(f"server/{r} calls a later room: server/{c}")
    for comp in cycles(rooms):
        problems.append("a cycle between rooms of server/: " + " <-> ".join(comp))
    for comp in cycles(files):
        problems.append("a cycle between files of server/: " + " <-> ".join(comp))
    for p in problems:
        print("check_rooms:", p, file=sys.stderr)
    if problems:
        return 1
    print(f"check_rooms: {len(files)} files of server/ in {len(rooms)} rooms, no call to a later "
          f"room, no cycle between rooms or files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
