# mpflc check: the top-level names of Python kernel files, by parsing them (ast) without importing them.
# Arguments: FILE or ZIP!ENTRY ...; prints one JSON object
# {argument: {"names": [...], "star": bool, "signatures": {function: signature}, "modules": [...]} or {"error": text}}
# (modules: the names bound only by 'import X', which are modules, never functions), where a signature
# of a plain top-level def (no decorator: one may change what it takes) says how it can be called with keywords, as
# a kernel is: {"line": N, "keywords": [...], "required": [...], "positional": [...], "any": bool, "varargs": NAME,
# "kind": K} (positional: the parameters without default that only a position can give; any: it takes **kwargs;
# varargs: the name of its *args or null; K: "plain",
# "async" for an async def, "generator" for a def that yields).
import ast
import json
import sys
import zipfile


def source(spec):
    if "!" in spec:
        archive, entry = spec.split("!", 1)
        with zipfile.ZipFile(archive) as z:
            return z.read(entry)
    with open(spec, "rb") as f:
        return f.read()


def bound(node):
    """The names a top-level statement binds, and whether it is a star import."""
    found, star = set(), False
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        found.add(node.name)
    elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    found.add(n.id)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            if alias.name == "*":
                star = True
            else:
                found.add((alias.asname or alias.name).split(".")[0])
    else:  # if/try blocks at top level may define names too: count them as maybe
        for n in ast.walk(node):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(n.name)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                found.add(n.id)
    return found, star


def names(tree):
    found, star = set(), False
    for node in tree.body:
        more, more_star = bound(node)
        found |= more
        star = star or more_star
    return sorted(found), star


def imported_modules(tree):
    """The top-level names bound only by 'import X' (or 'import X as Y'): modules, never functions."""
    imported, other = set(), set()
    for node in tree.body:
        found = bound(node)[0]
        if isinstance(node, ast.Import):
            imported |= found
        else:
            other |= found
    return sorted(imported - other)


def signature(node):
    a = node.args
    plain, positional = a.args, a.posonlyargs
    # the defaults belong to the last of the position-only and plain parameters together
    first_defaulted = len(positional) + len(plain) - len(a.defaults)
    every = positional + plain
    without_default = [p.arg for i, p in enumerate(every) if i < first_defaulted]
    return {"line": node.lineno,
            "keywords": [p.arg for p in plain] + [p.arg for p in a.kwonlyargs],
            "required": [n for n in without_default if n not in {p.arg for p in positional}]
                        + [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None],
            "positional": [n for n in without_default if n in {p.arg for p in positional}],
            "any": a.kwarg is not None,
            "varargs": a.vararg.arg if a.vararg is not None else None,
            "kind": "async" if isinstance(node, ast.AsyncFunctionDef) else "generator" if yields(node) else "plain"}


def yields(function):
    """Whether a def is a generator: a yield in its own body, not in a def, lambda or class inside it (a generator
    expression is a scope of its own too: ast.walk would see its elements, never a Yield)."""
    todo = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def signatures(tree):
    found = {}
    for node in tree.body:
        for name in bound(node)[0]:
            found.pop(name, None)  # bound again (or maybe, in a block): what it takes is not known from here
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list:
            found[node.name] = signature(node)
    return found


result = {}
for spec in sys.argv[1:]:
    try:
        tree = ast.parse(source(spec), filename=spec)
        found, star = names(tree)
        result[spec] = {"names": found, "star": star, "signatures": signatures(tree), "modules": imported_modules(tree)}
    except SyntaxError as e:
        # file:line:col (Python's offset is 1-based, as the document's columns are; absent for a few errors)
        where = "%s:%s" % (e.lineno, e.offset) if e.offset else "%s" % e.lineno
        result[spec] = {"error": "%s:%s: SyntaxError: %s" % (spec.split("!")[-1], where, e.msg)}
    except Exception as e:  # unreadable file or zip
        result[spec] = {"error": "%s: %s" % (spec, e)}
print(json.dumps(result))
