"""Parsing a source file never runs it (docs/dsl.md, values from the enclosing Python scope): module statements that would write a file or run a
command do nothing, and neither do expressions hidden in decorators, annotations or the class body."""

import os
import subprocess
import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto.language.parser import text_parser
from pypto.language.parser.diagnostics import ParserError


def hostile_module(marker_dir) -> str:
    written = marker_dir / "written.txt"
    by_command = marker_dir / "by_command.txt"
    by_subprocess = marker_dir / "by_subprocess.txt"
    return textwrap.dedent(f"""
        import os
        import subprocess
        import pypto.language as pl

        open({str(written)!r}, "w").write("module body ran")
        os.system("touch {by_command}")
        subprocess.run(["touch", {str(by_subprocess)!r}])
        ROWS = 64
        M = pl.dynamic("M")
        if True:
            open({str(written)!r}, "a").write("still running")

        @pl.program
        class Safe:
            @pl.function
            def main(self, x: pl.Tensor[[M, ROWS], pl.FP32]) -> pl.Tensor[[M, ROWS], pl.FP32]:
                y = pl.add(x, 1.0)
                return y

        os.system("touch {by_command}")
    """)


def created(marker_dir) -> list[str]:
    return sorted(p.name for p in marker_dir.iterdir() if p.name != "prog.py")


@pytest.fixture
def no_process_spawning(monkeypatch):
    """Belt and braces: any attempt to run a command fails the test loudly."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"parsing tried to run a command: {args!r}")

    monkeypatch.setattr(os, "system", refuse)
    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)


@pytest.mark.parametrize("parse", [pl.parse, text_parser.parse, pl.parse_program], ids=["pl.parse",
                                                                                         "text_parser.parse",
                                                                                         "pl.parse_program"])
def test_hostile_module_body_is_not_run(tmp_path, no_process_spawning, parse):
    path = tmp_path / "prog.py"
    path.write_text(hostile_module(tmp_path))
    program = parse(path.read_text(), filename=str(path))
    assert created(tmp_path) == []
    assert isinstance(program, ir.Program) and program.name == "Safe"
    main = program.get_function("main")
    m, rows = main.params[0].type.shape
    assert isinstance(m, ir.Var) and m.name_hint == "M"  # read from the module's own assignments
    assert rows.value == 64


@pytest.mark.parametrize("hidden", [
    # in the decorator
    "@pl.function(type=__import__('os').system('touch {m}'))\ndef f(x: pl.Scalar[pl.INDEX]):\n    pass\n",
    # in a parameter annotation
    "@pl.function\ndef f(x: pl.Tensor[[__import__('os').system('touch {m}')], pl.FP32]):\n    pass\n",
    # in the body
    "@pl.function\ndef f(x: pl.Scalar[pl.INDEX]):\n    y = open('{m}', 'w')\n",
    # in a program's class body
    "@pl.program\nclass P:\n    open('{m}', 'w')\n",
    # in a module constant the program uses
    "N = open('{m}', 'w')\n@pl.function\ndef f(x: pl.Tensor[[N], pl.FP32]):\n    pass\n",
])
def test_hidden_expressions_are_not_evaluated(tmp_path, no_process_spawning, hidden):
    marker = tmp_path / "marker"
    source = "import pypto.language as pl\n" + hidden.format(m=marker)
    with pytest.raises(ParserError):
        pl.parse(source, filename="prog.py")
    assert not marker.exists()


def test_imports_of_other_modules_are_not_executed(tmp_path, monkeypatch):
    # A module that would be imported by the text: it records being imported.
    (tmp_path / "sneaky_module.py").write_text(f"open({str(tmp_path / 'imported')!r}, 'w').write('x')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    source = textwrap.dedent("""
        import sneaky_module
        from sneaky_module import anything
        import pypto.language as pl

        @pl.function
        def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            return x
    """)
    pl.parse(source)
    assert not (tmp_path / "imported").exists()


# -- module-level constants: read from the AST, never computed by running the text ---------------------------
def constants_module(marker) -> str:
    m = str(marker)
    return textwrap.dedent(f"""
        import os
        import pypto.language as pl

        LOG = open({m!r}, "w").write("constant computed")   # unused: never evaluated
        STATUS = os.system("touch {m}")
        ROWS = 16
        SHAPE = [ROWS, ROWS * 8]
        LAYOUTS = ((8, 8), tuple(SHAPE))                      # a call inside: not read
        DT = pl.FP32
        BUFS = (16, 32)
        I = 3
        HALF = SHAPE[1] // 2
        M = pl.dynamic("M")

        @pl.function
        def f(x: pl.Tensor[SHAPE, DT], y: pl.Tensor[[M, BUFS[I % 2]], DT]) -> pl.Tensor[[ROWS, HALF], DT]:
            z = pl.slice(x, [ROWS, HALF], [0, 0])
            return z
    """)


def test_module_constants_are_read_and_side_effects_beside_them_do_not_run(tmp_path, no_process_spawning):
    marker = tmp_path / "marker"
    f = pl.parse(constants_module(marker), filename="prog.py")
    assert not marker.exists()
    x, y = f.params
    assert [d.value for d in x.type.shape] == [16, 128] and x.type.dtype is pl.FP32
    assert y.type.shape[0].name_hint == "M" and y.type.shape[1].value == 32
    assert [d.value for d in f.return_types[0].shape] == [16, 64]


@pytest.mark.parametrize("constant", [
    "N = open('{m}', 'w').write('x')",
    "N = [open('{m}', 'w')][0]",
    "N = (lambda: open('{m}', 'w'))()",
    "N = 16 if open('{m}', 'w') else 8",
    "N = int(open('{m}', 'w') is None) * 16",
    "N = SIZES[len(open('{m}', 'w').name) % 2]",
    "N = SIZES[0]\nN += len(open('{m}', 'w').name)",
    "N, K = open('{m}', 'w'), 1",
    "N: int = open('{m}', 'w')",
    "N = {{open('{m}', 'w'): 1}}",
    "N = [open('{m}', 'w') for _ in range(1)]",
    "N = f'{{open(\"{m}\", \"w\")}}'",
    "N = pl.dynamic(open('{m}', 'w').name)",
    "N = 16\nif open('{m}', 'w'):\n    N = 32",
    "N = 16\nSIZES.append(open('{m}', 'w'))\nN = SIZES",
], ids=["call", "list_item", "lambda", "ifexp", "arith", "index", "augassign", "unpack", "annotated", "dict",
        "comprehension", "fstring", "dynamic_name", "if_block", "mutation"])
def test_a_used_module_constant_with_a_side_effect_is_reported_not_run(tmp_path, no_process_spawning, constant):
    marker = tmp_path / "marker"
    source = ("import pypto.language as pl\nSIZES = [16, 32]\n" + constant.format(m=marker) +
              "\n@pl.function\ndef f(x: pl.Tensor[[N, 128], pl.FP32]):\n    pass\n")
    with pytest.raises(ParserError) as info:
        pl.parse(source, filename="prog.py")
    assert not marker.exists()
    assert "'N' (module level, line" in info.value.message and "never runs the file" in info.value.message


@pytest.mark.parametrize("use", ["dtype", "memory", "decorator"])
def test_a_constant_with_a_side_effect_in_other_positions_is_not_run(tmp_path, no_process_spawning, use):
    marker = tmp_path / "marker"
    value = f"getattr(pl, 'FP32', open({str(marker)!r}, 'w'))"
    sig = {"dtype": "x: pl.Tensor[[16], V]", "memory": "x: pl.Tile[[16, 16], pl.FP32, V]",
           "decorator": "x: pl.Tensor[[16], pl.FP32]"}[use]
    decorator = "@pl.function(type=V)" if use == "decorator" else "@pl.function(type=pl.FunctionType.InCore)"
    source = f"import pypto.language as pl\nV = {value}\n{decorator}\ndef f({sig}):\n    pass\n"
    with pytest.raises(ParserError, match="calling 'getattr"):
        pl.parse(source, filename="prog.py")
    assert not marker.exists()
