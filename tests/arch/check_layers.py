#!/usr/bin/env python3
"""The engine's layers and the daemon's boundary, checked from the build (make test-arch).

core/ is util < spec < model < stages < solve < json (CORE_LAYERS in the Makefile). A file may call
(by its object's undefined symbols, as nm lists them) and include files of its own layer and
of the layers before it, never of a later one, and no two files of core/ may need each other
through any chain of calls: a cycle is a module boundary drawn in the wrong place. Stages do
not call each other (the solve/ layer orders them). server/
includes core/rod.h, rod_json.h and rod_text.h, never a layer's internal header.

    check_layers.py BUILD_DIR [--graph] [--root DIR]
        exit 1 with every breach named; --graph prints the file graph of core/ (caller ->
        callees) first; --root: the source tree (default: this checkout; tests/arch/run.sh
        points it at small trees with a breach each, to see the check fail)
"""
import os
import re
import subprocess
import sys

LAYERS = ["util", "spec", "model", "stages", "solve", "json"]
PUBLIC = {"rod.h", "rod_json.h", "rod_text.h"}
# server/ files that still include a layer's header, with the header: none may be added.
SERVER_EXCEPTIONS = set()


def layer_files(root, ext):
    out = {}
    for layer in LAYERS:
        d = os.path.join(root, "core", layer)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if f.endswith(ext):
                out[f] = layer
    return out


def symbols(obj):
    text = subprocess.run(["nm", "-g", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in text.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRCV":
            defined.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            undefined.add(p[1])
    return defined, undefined


def includes(path):
    with open(path, encoding="utf-8") as f:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if "--root" in sys.argv:
        root = sys.argv[sys.argv.index("--root") + 1]
    build = sys.argv[1]
    sources = layer_files(root, ".c")
    headers = layer_files(root, ".h")
    unit_layer = {f[:-2]: layer for f, layer in sources.items()}
    unit_layer.update({f[:-2]: layer for f, layer in headers.items()})
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    problems = []

    owner, needs = {}, {}
    for f, layer in sources.items():
        unit = f[:-2]
        obj = os.path.join(build, "core", layer, unit + ".o")
        if not os.path.exists(obj):
            problems.append(f"{obj}: missing (build the engine first)")
            continue
        defined, needs[unit] = symbols(obj)
        for s in defined:
            owner[s] = unit
    graph = {u: set() for u in needs}
    for unit, syms in needs.items():
        for s in syms:
            if s in owner and owner[s] != unit:
                graph[unit].add(owner[s])

    if "--graph" in sys.argv:
        for layer in LAYERS:
            for unit in sorted(u for u in graph if unit_layer[u] == layer):
                print(f"{layer}/{unit} -> {' '.join(sorted(graph[unit]))}")
        sys.stdout.flush()

    for unit in sorted(graph):
        for callee in sorted(graph[unit]):
            if rank[unit_layer[callee]] > rank[unit_layer[unit]]:
                problems.append(f"core/{unit_layer[unit]}/{unit}.c calls into a later layer: "
                                f"core/{unit_layer[callee]}/{callee}.c")
    for unit in sorted(graph):
        for callee in sorted(graph[unit]):
            if unit_layer[unit] == unit_layer[callee] == "stages":
                problems.append(f"core/stages/{unit}.c calls another stage: core/stages/{callee}.c")
    for comp in cycles(graph):
        problems.append("a cycle between files of core/: " + " <-> ".join(comp))

    for name, layer in list(sources.items()) + list(headers.items()):
        for inc in includes(os.path.join(root, "core", layer, name)):
            base = os.path.basename(inc)
            if base in headers and rank[headers[base]] > rank[layer]:
                problems.append(f"core/{layer}/{name} includes a later layer's header: "
                                f"core/{headers[base]}/{base}")

    server = os.path.join(root, "server")
    names = sorted(os.path.relpath(os.path.join(d, f), server)
                   for d, _, fs in os.walk(server) for f in fs)
    for name in names:
        if not name.endswith((".c", ".h")):
            continue
        for inc in includes(os.path.join(server, name)):
            base = os.path.basename(inc)
            if base in headers and base not in PUBLIC and (name, base) not in SERVER_EXCEPTIONS:
                problems.append(f"server/{name} includes core's internal {headers[base]}/{base}")

    for p in problems:
        print("check_layers:", p, file=sys.stderr)
    if problems:
        return 1
    print(f"check_layers: {len(graph)} files of core/ in {len(LAYERS)} layers, no cycle, "
          f"no call or include upward, no call between stages; "
          f"server/ includes no internal header of core's "
          f"(exceptions listed: {len(SERVER_EXCEPTIONS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
