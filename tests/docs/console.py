"""The tutorial's console blocks against what its sh blocks printed (tests/docs/run.sh).

    python3 console.py TUTORIAL.md OUTPUT.txt

OUTPUT.txt holds the output of every sh block, each after a line "@@block N@@" (N counted
from 1 in the order of the blocks). A console block shows what the sh block before it prints:
each of its lines must be a whole line of that output, in order (the output may have more
lines between them). Every number in a console line must be printed as shown, except a number
marked "~" (a wall time, a residual at rounding level, a step count: they vary from machine to
machine), which stands for any number; "..." stands for the rest of a line."""
import re
import sys

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def blocks(markdown):
    """(kind, index of the last sh block so far, lines) for every fenced block."""
    out, kind, lines, sh = [], None, [], 0
    for line in markdown.splitlines():
        if kind is None and line.startswith("```") and len(line) > 3:
            kind, lines = line[3:], []
            sh += kind == "sh"
        elif kind is not None and line.startswith("```"):
            out.append((kind, sh, lines))
            kind = None
        elif kind is not None:
            lines.append(line)
    return out


def pattern(shown):
    """The regex of a console line: literal text, ~NUMBER any number, ... anything."""
    parts = re.split(r"(~" + NUMBER + r"|\.\.\.)", shown)
    rx = "".join(NUMBER if p.startswith("~") else ".*" if p == "..." else re.escape(p) for p in parts)
    return re.compile(rx + r"\s*")


def outputs(text):
    by_block, current = {}, None
    for line in text.splitlines():
        m = re.fullmatch(r"@@block (\d+)@@", line)
        if m:
            current = int(m.group(1))
            by_block[current] = []
        elif current is not None:
            by_block[current].append(line)
    return by_block


def main(tutorial, printed):
    by_block = outputs(open(printed).read())
    failures, checked = 0, 0
    for kind, sh, lines in blocks(open(tutorial).read()):
        if kind != "console":
            continue
        got = by_block.get(sh)
        if got is None:
            print(f"FAIL a console block follows no sh block that ran (sh block {sh})", file=sys.stderr)
            failures += 1
            continue
        at = 0
        for shown in (l for l in lines if l.strip()):
            rx = pattern(shown)
            while at < len(got) and not rx.fullmatch(got[at]):
                at += 1
            if at == len(got):
                print(f"FAIL sh block {sh} printed no line like\n  {shown}\nit printed:", file=sys.stderr)
                print("\n".join("  " + g for g in got), file=sys.stderr)
                failures += 1
                break
            at += 1
            checked += 1
    if failures:
        return 1
    print(f"ok   docs/tutorial.md: {checked} console lines as printed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
