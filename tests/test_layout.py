"""The package stays readable: no module over 500 lines, no function over 80 lines of code
counting its signature (issue 34's layout rule, issue 51's signature count: a newcomer
reads one concept per module, and a long parameter list is no way around the rule)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "pearl"


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_over_500_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in _modules()
        if (n := len(p.read_text().splitlines())) > 500
    }
    assert not long, long


def _code_lines(node: ast.AST, lines: list[str]) -> int:
    """Lines of a function that hold code, its signature included: not blank, not a
    comment, not its docstring."""
    body = node.body
    docstring = (
        isinstance(body[0], ast.Expr)
        and isinstance(getattr(body[0], "value", None), ast.Constant)
        and isinstance(body[0].value.value, str)
    )
    signature = lines[node.lineno - 1 : body[0].lineno - 1]
    start = body[0].end_lineno if docstring else body[0].lineno - 1
    span = signature + lines[start : node.end_lineno]
    return sum(1 for line in span if line.strip() and not line.strip().startswith("#"))


def test_the_size_rule_counts_a_signature():
    source = "def f(\n" + "    a%d,\n" * 70 + "):\n" + '    """Doc."""\n' + "    x = 1\n" * 10
    source = source % tuple(range(70))
    tree = ast.parse(source)
    assert _code_lines(tree.body[0], source.splitlines()) == 82


def test_no_function_is_over_80_lines_of_code():
    long = {}
    for path in _modules():
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if (n := _code_lines(node, lines)) > 80:
                    long[f"{path.relative_to(PACKAGE)}:{node.name}"] = n
    assert not long, long


def _import_graph() -> dict[str, set[str]]:
    """pearl module -> the pearl modules it imports, at any depth of its code (a function's
    lazy import counts: it is a dependency all the same); ``from pearl.x import y`` of a
    submodule ``y`` is a dependency on ``pearl.x.y``."""
    root = Path(__file__).resolve().parents[1] / "src"
    paths = {
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
        for p in sorted((root / "pearl").rglob("*.py"))
    }
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pearl"):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    deps.add(sub if sub in paths else node.module)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("pearl"))
        graph[name] = deps - {name}
    return graph


def test_the_package_has_no_import_circle():
    # were: models.loading -> (registry) fusion -> raw_text -> loading (StrictTransformer),
    # and tables.join -> record_linkage -> join (the join's output kit)
    graph = _import_graph()
    seen: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for dep in sorted(graph.get(node, ())):
            if dep in graph:
                assert seen.get(dep) != 1, " -> ".join([*path, node, dep])
                if dep not in seen:
                    visit(dep, [*path, node])
        seen[node] = 2

    for module in sorted(graph):
        if module not in seen:
            visit(module, [])


def test_the_public_functions_are_fully_typed():
    # mypy checks it too (disallow_incomplete_defs on their modules, pyproject.toml)
    import inspect

    import pearl

    untyped = []
    for name in pearl.__all__:
        obj = getattr(pearl, name)
        if inspect.isclass(obj):
            members = [
                (f"{name}.{m}", f)
                for m, f in vars(obj).items()
                if inspect.isfunction(f) and (not m.startswith("_") or m == "__init__")
            ]
        elif inspect.isfunction(obj):
            members = [(name, obj)]
        else:
            continue
        for label, fn in members:
            sig = inspect.signature(fn)
            params = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
            missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
            if missing or (sig.return_annotation is inspect.Signature.empty):
                untyped.append((label, missing))
    assert not untyped, untyped
