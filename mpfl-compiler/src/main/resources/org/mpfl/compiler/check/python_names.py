# mpflc check: the top-level names of Python kernel files, by parsing them (ast) without importing them.
# Arguments: FILE or ZIP!ENTRY ...; prints one JSON object {argument: {"names": [...], "star": bool} or {"error": text}}.
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


def names(tree):
    found, star = set(), False
    for node in tree.body:
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
    return sorted(found), star


result = {}
for spec in sys.argv[1:]:
    try:
        tree = ast.parse(source(spec), filename=spec)
        found, star = names(tree)
        result[spec] = {"names": found, "star": star}
    except SyntaxError as e:
        result[spec] = {"error": "%s:%s: SyntaxError: %s" % (spec.split("!")[-1], e.lineno, e.msg)}
    except Exception as e:  # unreadable file or zip
        result[spec] = {"error": "%s: %s" % (spec, e)}
print(json.dumps(result))
