"""The `pl` parser: Python's AST of a program, read (never executed) into IR (docs/dsl.md).

How it is put together. `program_parser.py` reads a `@pl.program` class or a text and parses each function
with one `FunctionParser`. That parser is built in layers, one module per kind of syntax, each adding to the
one below it; a layer calls only its own methods and those of the layers below, except where the syntax
itself nests (a call holds argument expressions; a loop or scope
holds statements), which goes through the top-level entry points `parse_value` and `parse_body`:

    base.py          ParserBase: the function's parse state, located errors, frames, blocks, `pl` paths
    outside.py       + values from outside the body (module constants, closures), read without running
    annotations.py   + types in annotations (pl.Tensor[...], pl.Tile[...], views, MemRefs)
    slices.py        + subscripts and windows (`x[0:16, :]`)
    exprs.py         + expressions and calls (DSL ops, functions of the program, folding of constants)
    stmts.py         + statements (assignments, returns, yields, if / else, comments)
    loops.py         + loops and pl.split_aiv regions
    scopes.py        + `with` scopes (pl.at, pl.cluster, ...)
    function_parser.py + the function itself: parameters, return types, attributes

The parse state all layers share is declared in one place, `ParserBase.__init__` (the symbol table, the
enclosing frames, the statement blocks being built, the caches of `pl` lookups). Around the parser:
`env.py` (names outside the body, constant folding), `module_constants.py` (a text module's constants),
`context.py` (what the functions of one program share), `errors.py` (the error classes and their
rendering), `source.py` (spans and comments of the source text).
"""
