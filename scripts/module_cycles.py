#!/usr/bin/env python3
"""Prints the import circles of a Rust crate: the strongly connected components of its module
graph, restricted to the modules under the prefixes given.

    scripts/module_cycles.py backend/src/lib.rs room http

A module is a file (an inline `mod x { … }`, such as a test module, counts as its file). Module A
depends on module B when A's file names an item that B defines: through `use` trees, `crate::`,
`super::` and `self::` paths, and paths that start with a child module or a name A imported. An
item that B only re-exports (`pub use c::X`) is followed to the module that defines it, so that a
`mod.rs` that re-exports is not a hub by itself; the re-export is still an edge of B's own.
Declaring a child module (`mod x;`) is no dependency. Exits 1 when a circle is found.
"""

import os
import re
import sys
from collections import defaultdict

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(text):
    """The text without comments, string and char literals (same length kept out of mind)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not re.match(r"\w", text[i - 1:i] or " "):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            out.append('""')
            i = n if end < 0 else end + 1 + len(m.group(1))
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]) or re.match(r"'\\u\{[0-9a-fA-F]+\}'", text[i:i + 12]):
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Module:
    def __init__(self, path, file):
        self.path = path  # tuple of segments from the crate root
        self.file = file
        self.children = {}  # name -> path
        self.imports = {}  # local name -> absolute segments
        self.reexports = {}  # item name -> absolute segments (pub use)
        self.refs = []  # absolute segment lists


def child_file(parent_file, name, attr_path):
    base = os.path.dirname(parent_file)
    stem = os.path.splitext(os.path.basename(parent_file))[0]
    if attr_path:
        return os.path.join(base, attr_path)
    if stem not in ("mod", "lib", "main"):
        base = os.path.join(base, stem)
    for cand in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
        if os.path.exists(cand):
            return cand
    return None


def expand_use(tree):
    """The paths of a `use` tree: lists of segments, each with its local name (or '*')."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", tree))
    out = []

    def walk(prefix, t):
        if t.startswith("::"):
            t = t[2:]
        # split the leading path from a brace group
        m = re.match(r"^((?:%s::)*)\{(.*)\}$" % IDENT, t)
        if m:
            head = [s for s in m.group(1).split("::") if s]
            for part in split_top(m.group(2)):
                if part:
                    walk(prefix + head, part)
            return
        alias = None
        if "@" in t:
            t, alias = t.split("@", 1)
        segs = [s for s in t.split("::") if s]
        if segs and segs[-1] == "self":
            segs = segs[:-1]
            full = prefix + segs
            out.append((full, alias or (full[-1] if full else None)))
            return
        full = prefix + segs
        name = alias or (full[-1] if full else None)
        out.append((full, name))

    walk([], tree)
    return out


def split_top(s):
    parts, depth, cur = [], 0, ""
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def load(root_file):
    modules = {}
    todo = [((), root_file)]
    while todo:
        path, file = todo.pop()
        text = strip(open(file, encoding="utf-8").read())
        mod = Module(path, file)
        modules[path] = mod
        # inline modules are folded into their file: `super::` inside them is the file
        inline_spans = []
        for m in re.finditer(r"(#\[path\s*=\s*\"\"\]\s*)?\bmod\s+(%s)\s*([;{])" % IDENT, text):
            name = m.group(2)
            if m.group(3) == ";":
                attr = re.search(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+%s\s*;' % name,
                                 open(file, encoding="utf-8").read())
                cf = child_file(file, name, attr.group(1) if attr else None)
                if cf:
                    mod.children[name] = path + (name,)
                    todo.append((path + (name,), cf))
            else:
                start = m.end()
                depth, j = 1, start
                while j < len(text) and depth:
                    depth += {"{": 1, "}": -1}.get(text[j], 0)
                    j += 1
                inline_spans.append((start, j))
        mod.text = text
        mod.inline = inline_spans
    return modules


def resolve_relative(mod, segs, in_inline):
    """Absolute segments of `segs` as written in `mod` (None for another crate's path)."""
    if not segs:
        return None
    here = list(mod.path)
    head = segs[0]
    if head == "crate":
        return segs[1:]
    if head in ("self", "super"):
        base = here
        rest = list(segs)
        if in_inline and rest[0] == "super":
            rest = rest[1:]  # `super` of an inline module is its file
        while rest and rest[0] in ("self", "super"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
        return base + rest
    if head in mod.children:
        return here + segs
    if head in mod.imports and mod.imports[head] is not None:
        return mod.imports[head] + segs[1:]
    return None


def target(modules, abs_segs, seen=None):
    """The module that defines what `abs_segs` names (following re-exports)."""
    seen = seen or set()
    path = ()
    i = 0
    while i < len(abs_segs) and path + (abs_segs[i],) in modules:
        path = path + (abs_segs[i],)
        i += 1
    if path not in modules:
        return None
    rest = abs_segs[i:]
    m = modules[path]
    if rest and rest[0] in m.reexports and (path, rest[0]) not in seen:
        seen.add((path, rest[0]))
        deeper = target(modules, m.reexports[rest[0]] + rest[1:], seen)
        if deeper:
            return deeper
    return path


def collect(modules):
    for mod in modules.values():
        text = mod.text
        inline = lambda pos: any(a <= pos < b for a, b in mod.inline)
        for m in re.finditer(r"(\bpub(?:\([^)]*\))?\s+)?\buse\s+([^;]+);", text):
            for segs, name in expand_use(m.group(2)):
                absolute = resolve_relative(mod, segs, inline(m.start()))
                if absolute is None:
                    continue
                # An ancestor named as a namespace (`use crate::room;`) is no dependency by itself:
                # the paths through it are.
                if not (tuple(absolute) in modules and mod.path[:len(absolute)] == tuple(absolute)):
                    mod.refs.append(absolute)
                if name and name != "*":
                    mod.imports.setdefault(name, absolute)
                    if m.group(1) and not inline(m.start()):
                        mod.reexports[name] = absolute
        body = re.sub(r"\buse\s+[^;]+;", "", text)
        for m in re.finditer(r"(?<![\w:])(%s(?:\s*::\s*%s)+)" % (IDENT, IDENT), body):
            segs = re.sub(r"\s+", "", m.group(1)).split("::")
            absolute = resolve_relative(mod, segs, inline(m.start()))
            if absolute is not None:
                mod.refs.append(absolute)


def graph(modules):
    edges = defaultdict(set)
    for path, mod in modules.items():
        for ref in mod.refs:
            t = target(modules, ref)
            if t is not None and t != path:
                edges[path].add(t)
    return edges


def sccs(nodes, edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
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
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            strong(v)
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root, prefixes = sys.argv[1], sys.argv[2:]
    modules = load(root)
    collect(modules)
    edges = graph(modules)
    name = lambda p: "::".join(p) or "crate"
    wanted = lambda p: not prefixes or any(p[:1] == (x,) for x in prefixes)
    if os.environ.get("EDGES"):
        for a in sorted(modules):
            if wanted(a):
                print(name(a), "->", ", ".join(sorted(name(b) for b in edges.get(a, ()))))
    circles = [sorted(c) for c in sccs(sorted(modules), edges) if len(c) > 1 and any(wanted(p) for p in c)]
    for c in sorted(circles):
        print("circle:", " ".join(name(p) for p in c))
    print(f"{len(circles)} circle(s) among {sum(1 for p in modules if wanted(p))} modules")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
