"""The `pypto` command (minimal: `pypto compile FILE`; the full CLI arrives with the pipeline work)."""

from __future__ import annotations

import argparse
import sys

from pypto_core.errors import InternalError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pypto", description="Compile pl DSL programs.")
    sub = parser.add_subparsers(dest="command", required=True)
    compile_cmd = sub.add_parser("compile", help="parse a program file and print it as pl text")
    compile_cmd.add_argument("file")
    compile_cmd.add_argument("-o", "--output")
    args = parser.parse_args(argv)
    try:
        from pypto_core.language.api import parse
        from pypto_core.language.printer import python_print

        with open(args.file, encoding="utf-8") as fh:
            text = fh.read()
        program = parse(text, args.file)
        out = python_print(program)
    except OSError as exc:
        print(f"pypto: error: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"pypto: error: {exc}", file=sys.stderr)
        return 1
    except InternalError as exc:
        print(f"pypto: internal error: {exc}\nplease report this", file=sys.stderr)
        return 3
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(out + "\n")
    else:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
