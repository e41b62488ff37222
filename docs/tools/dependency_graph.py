#!/usr/bin/env python3
"""Draws the package dependency graph of MPFL's production code from the compiled classes.

Usage (after `mvn -DskipTests package`):  python3 docs/tools/dependency_graph.py
Writes docs/plots/modules.dot (which module's code uses which) and docs/plots/dependencies.dot (the
packages of each module and their dependencies inside it), and PNGs of both where Graphviz's `dot`
is installed; prints the module-level edges and the lines of production code per module (Markdown).
The edges come from `jdeps` (JDK) over each module's target/classes: nothing is drawn by hand.
"""
import collections
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODULES = [  # bottom to top, as the parent POM builds them
    "service-runtime/mpfl-api", "mpfl-grammar", "mpfl-compiler/mpfl-ir", "mpfl-compiler", "service-runtime/mpiws-protocol", "service-runtime",
    "enactment-engine", "enactment-engine/mpfl-bench", "service-runtime/mpiws-war", "samples",
]


def package_edges(module):
    classes = os.path.join(ROOT, module, "target", "classes")
    if not os.path.isdir(classes):
        sys.exit(f"dependency_graph: {classes} is missing; build first (mvn -DskipTests package)")
    out = subprocess.run(["jdeps", "-verbose:package", "-filter:none", "-e", r"org\.mpfl\..*", classes],
                         capture_output=True, text=True, check=True).stdout
    edges, packages = set(), set()
    for line in out.splitlines():
        m = re.match(r"\s+(org\.mpfl\S*)\s+->\s+(org\.mpfl\S*)", line)
        if m:
            packages.add(m.group(1))
            if m.group(1) != m.group(2):
                edges.add((m.group(1), m.group(2)))
    for dirpath, _, files in os.walk(classes):
        if any(f.endswith(".class") for f in files):
            packages.add(os.path.relpath(dirpath, classes).replace(os.sep, "."))
    return {p for p in packages if p.startswith("org.mpfl")}, edges


def lines_of_code(module):
    total = 0
    src = os.path.join(ROOT, module, "src", "main", "java")
    for dirpath, _, files in os.walk(src):
        for f in files:
            if f.endswith(".java"):
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    total += sum(1 for _ in fh)
    return total


def main():
    owner, edges = {}, set()
    for module in MODULES:
        packages, module_edges = package_edges(module)
        for p in packages:
            owner.setdefault(p, module)
        edges |= module_edges
    short = lambda p: p[len("org.mpfl."):] if p.startswith("org.mpfl.") else p
    module_edges = collections.defaultdict(set)
    for a, b in edges:
        if a in owner and b in owner and owner[a] != owner[b]:
            module_edges[owner[a]].add(owner[b])
    modules = ["digraph modules {", "  rankdir=BT; node [shape=box, style=rounded, fontname=Helvetica];"]
    modules += [f'  "{m}";' for m in MODULES]
    modules += [f'  "{a}" -> "{b}";' for a in MODULES for b in MODULES if b in module_edges[a]]
    modules.append("}")
    # cross-module edges are the module graph's business: drawing them here would hide the layers
    dot = ["digraph packages {", "  rankdir=BT; node [shape=box, fontsize=10, fontname=Helvetica];"]
    for i, module in enumerate(MODULES):
        dot.append(f'  subgraph cluster_{i} {{ label="{module}"; style=rounded; color=gray40; fontname=Helvetica;')
        for p in sorted(p for p, m in owner.items() if m == module):
            dot.append(f'    "{short(p)}";')
        for a, b in sorted(edges):
            if owner.get(a) == module and owner.get(b) == module:
                dot.append(f'    "{short(a)}" -> "{short(b)}";')
        dot.append("  }")
    dot.append("}")
    plots = os.path.join(ROOT, "docs", "plots")
    for name, lines in (("modules", modules), ("dependencies", dot)):
        with open(os.path.join(plots, name + ".dot"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
        if shutil.which("dot"):
            subprocess.run(["dot", "-Tpng", "-Gdpi=96", "-o", os.path.join(plots, name + ".png"),
                            os.path.join(plots, name + ".dot")], check=True)
    print("wrote docs/plots/modules.dot, docs/plots/dependencies.dot"
          + (" and their PNGs" if shutil.which("dot") else " (install graphviz for the PNGs)"))
    print("\n| module | uses (in its code) | lines of production code |\n| --- | --- | ---: |")
    for module in MODULES:
        print(f"| `{module}` | {', '.join(f'`{m}`' for m in MODULES if m in module_edges[module]) or '—'} | {lines_of_code(module)} |")


if __name__ == "__main__":
    main()
