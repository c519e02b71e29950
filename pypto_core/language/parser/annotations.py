"""Type annotations: `pl.Tensor[...]`, `pl.Tile[...]`, `pl.Scalar[...]`, `pl.Tuple[...]`, `pl.Out[...]` (docs/dsl.md, functions)."""

from __future__ import annotations

import ast
import difflib
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CompactMode, MemorySpace, PadValue, ParamDirection, TensorLayout, TileLayout
from pypto_core.language.parser.env import MISSING
from pypto_core.language.parser.errors import ParserTypeError
from pypto_core.language.parser.limits import MAX_DIM
from pypto_core.language.parser.outside import OutsideValueParser
from pypto_core.language.parser.pyvalues import python_type_name

_HEADS = ("Tensor", "Tile", "Scalar", "Tuple", "Out", "InOut", "DistributedTensor")


class TypeParser(OutsideValueParser):
    # Provided by the expression parser.
    def parse_scalar_expr(self, node: ast.AST, what: str) -> E.Expr:  # pragma: no cover - mixin contract
        raise NotImplementedError

    def parse_value(self, node: ast.AST) -> Any:  # pragma: no cover - mixin contract
        raise NotImplementedError

    def parse_param_annotation(self, node: ast.AST) -> tuple[T.Type, ParamDirection]:
        head, args = self._annotation_head(node)
        if head in ("Out", "InOut"):
            if len(args) != 1:
                self.fail(ParserTypeError, f"pl.{head}[...] takes exactly one type", node)
            return self.parse_type(args[0]), ParamDirection[head]
        return self.parse_type(node), ParamDirection.In

    def parse_return_annotation(self, node: ast.AST) -> list[T.Type]:
        if isinstance(node, ast.Constant) and node.value is None:
            return []
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "tuple":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [self.parse_type(e) for e in elts]
        return [self.parse_type(node)]

    def _annotation_head(self, node: ast.AST) -> tuple[str | None, list[ast.AST]]:
        if isinstance(node, ast.Subscript):
            path = self.pl_path(node.value)
            if path == "pld.DistributedTensor":  # `import pypto.language.distributed as pld` spells it so
                path = "DistributedTensor"
            if path in _HEADS:
                sl = node.slice
                if path == "Tuple" and isinstance(sl, ast.Tuple):
                    return path, list(sl.elts)
                if isinstance(sl, ast.Tuple) and path in ("Tensor", "Tile", "DistributedTensor"):
                    return path, list(sl.elts)
                return path, [sl]
            if isinstance(node.value, ast.Name) and node.value.id == "tuple":
                sl = node.slice
                return "Tuple", list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        path = self.pl_path(node)
        if path in ("UnknownType", "Ptr"):
            return path, []
        return None, []

    def parse_type(self, node: ast.AST) -> T.Type:
        head, args = self._annotation_head(node)
        if head == "Scalar":
            return T.ScalarType(self.parse_dtype(args[0]))
        if head in ("Tensor", "DistributedTensor"):
            return self._tensor_type(node, args, head)
        if head == "Tile":
            return self._tile_type(node, args)
        if head == "Tuple":
            if len(args) == 1 and isinstance(args[0], ast.Tuple) and not args[0].elts:
                return T.TupleType([])
            return T.TupleType([self.parse_type(a) for a in args])
        if head == "UnknownType":
            return T.UnknownType()
        if head == "Ptr":
            return T.PtrType()
        if head in ("Out", "InOut"):
            self.fail(ParserTypeError, f"pl.{head}[...] is only allowed on function parameters", node)
        self.fail(ParserTypeError, f"unsupported type annotation '{ast.unparse(node)}'", node,
                  hint="use pl.Tensor[[dims], dtype], pl.Tile[[dims], dtype, ...], pl.Scalar[dtype] or pl.Tuple[...]")

    def parse_dtype(self, node: ast.AST) -> DataType:
        value = self.outside_static(node)
        if isinstance(value, DataType):
            return value
        self.explain_unresolved(node)
        written = ast.unparse(node)
        # `pl.FP23`: the nearest dtype names (DataType members, as `pl.<NAME>` spells them)
        close = difflib.get_close_matches(written.rsplit(".", 1)[-1].upper(), list(DataType.__members__), n=2,
                                          cutoff=0.5)
        hint = f"did you mean {' or '.join(f'pl.{c}' for c in close)}?" if close else None
        self.fail(ParserTypeError, f"expected a dtype such as pl.FP32, got '{written}'{_held(value)}", node,
                  hint=hint)

    def parse_dims(self, node: ast.AST, what: str = "shape") -> list[E.Expr]:
        """`[64, N]` written out, or a list or tuple from outside the body (`pl.Tensor[input_shape, ...]`)."""
        if isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            dims = [self.parse_scalar_expr(e, f"a {what} dimension") for e in node.elts]
            for d, e in zip(dims, node.elts):
                self.check_dim(d, e, what)
            return dims
        value = self.parse_value(node)
        if not isinstance(value, list):
            self.explain_unresolved(node)
            self.fail(ParserTypeError, f"the {what} must be a list of dimensions like [64, 128], "
                                       f"got '{ast.unparse(node)}'{_held(value)}", node)
        return [self._dim(v, node, what) for v in value]

    def check_dim(self, dim: E.Expr, node: ast.AST, what: str) -> None:
        """A written dimension is 1 .. MAX_DIM (parser/limits.py): a tensor or tile of no element has no tile
        form (the hardware stores assert positive extents); a run-time one is a pl.dynamic var."""
        if isinstance(dim.type, T.ScalarType) and not (dim.type.dtype.is_int() or dim.type.dtype.is_index_like()):
            self.fail(ParserTypeError, f"a {what} dimension must be an integer, got {ast.unparse(node)} of type "
                                       f"{dim.type}", node)
        low = 1 if what == "shape" else 0  # a valid extent may be 0 (an empty lane)
        if isinstance(dim, E.ConstInt) and not low <= dim.value <= MAX_DIM:
            hint = 'declare a dimension known only at run time with pl.dynamic("N")' if dim.value < 0 else None
            self.fail(ParserTypeError, f"a {what} dimension of {dim.value} is outside {low}..{MAX_DIM}", node,
                      hint=hint)

    def _dim(self, value: Any, node: ast.AST, what: str) -> E.Expr:
        if isinstance(value, bool) or not isinstance(value, (int, E.Expr)):
            self.fail(ParserTypeError, f"a {what} dimension must be an integer or a scalar expression, got "
                                       f"{value!r} in '{ast.unparse(node)}'", node)
        dim = self.to_expr(value, node, f"a {what} dimension")
        self.check_dim(dim, node, what)
        if not isinstance(dim.type, T.ScalarType):
            self.fail(ParserTypeError, f"a {what} dimension must be a scalar, got {dim.type} in "
                                       f"'{ast.unparse(node)}'", node)
        return dim

    def _tensor_type(self, node: ast.AST, args: list[ast.AST], head: str) -> T.Type:
        if len(args) < 2:
            self.fail(ParserTypeError, f"pl.{head}[...] needs a shape and a dtype: pl.{head}[[64, 128], pl.FP32]",
                      node)
        shape = self.parse_dims(args[0])
        dtype = self.parse_dtype(args[1])
        view: T.TensorView | None = None
        memref: T.MemRef | None = None
        for extra in args[2:]:
            value = self._type_extra(extra)
            if isinstance(value, TensorLayout):
                view = T.TensorView(layout=value)
            elif isinstance(value, T.TensorView):
                view = value
            elif isinstance(value, T.MemRef):
                memref = value
            else:
                self.explain_unresolved(extra)
                self.fail(ParserTypeError, f"unexpected entry '{ast.unparse(extra)}' in a tensor type", extra,
                          hint="a tensor type takes a layout (pl.ND), a pl.TensorView(...) or a pl.MemRef(...)")
        cls = T.DistributedTensorType if head == "DistributedTensor" else T.TensorType
        return cls(shape, dtype, memref, view)

    def _tile_type(self, node: ast.AST, args: list[ast.AST]) -> T.Type:
        if len(args) < 2:
            self.fail(ParserTypeError, "pl.Tile[...] needs a shape and a dtype: pl.Tile[[64, 128], pl.FP32]", node)
        shape = self.parse_dims(args[0])
        dtype = self.parse_dtype(args[1])
        memory: MemorySpace | None = None
        view_fields: _ViewFields | None = None
        view: T.TileView | None = None
        memref: T.MemRef | None = None
        seen: set[str] = set()
        for extra in args[2:]:
            value = self._type_extra(extra)
            kind = ("memory space" if isinstance(value, MemorySpace) else "TileView" if isinstance(value, _ViewFields)
                    else "MemRef" if isinstance(value, T.MemRef) else None)
            if kind is None:
                self.explain_unresolved(extra)
                self.fail(ParserTypeError, f"unexpected entry '{ast.unparse(extra)}' in a tile type", extra,
                          hint="a tile type takes a memory space (pl.Mem.Vec), a pl.TileView(...) and a pl.MemRef(...)")
            if kind in seen:
                self.fail(ParserTypeError, f"a tile type takes at most one {kind}", extra)
            seen.add(kind)
            if isinstance(value, MemorySpace):
                memory = value
            elif isinstance(value, _ViewFields):
                view_fields = value
            else:
                memref = value
        if memref is not None and memory is None:
            self.fail(ParserTypeError, "a tile type with a pl.MemRef needs an explicit memory space", node)
        if view_fields is not None:
            # Layout fields left out mean "the implicit layout of this tile" (the printer omits exactly those).
            blayout, slayout, fractal = T.implicit_layout(shape, memory)
            view = T.TileView(**{"blayout": blayout, "slayout": slayout, "fractal": fractal, **view_fields})
        return T.TileType(shape, dtype, memref, view, memory)

    def _type_extra(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Call):
            path = self.pl_path(node.func)
            if path == "TileView":
                return self.parse_tile_view(node)
            if path == "TensorView":
                return self.parse_tensor_view(node)
            if path == "MemRef":
                return self.parse_memref(node, None)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) \
                and self.pl_path(node.value.func) == "MemRef":
            return self.parse_memref(node.value, node.slice)
        declared = self.declared_memref(node)
        if declared is not None:
            return declared
        value = self.outside_static(node)
        if value is MISSING:
            self.explain_unresolved(node)
            self.fail(ParserTypeError, f"cannot resolve '{ast.unparse(node)}' in a type annotation", node)
        return value

    # -- MemRefs (docs/memory_planning.md, printed forms) -------------------------------------------------
    def ptr_var(self, name: str) -> E.Var:
        """The one Ptr Var of this function named `name` (interned: `pl.MemRef("x", ...)` and `pl.MemRef(x,
        ...)` and the assignment `x: pl.Ptr = ...` all mean the same allocation)."""
        table: dict[str, E.Var] = self.__dict__.setdefault("_ptr_vars", {})
        var = table.get(name)
        if var is None:
            var = table[name] = E.Var(name, T.PtrType())
        return var

    def declared_memref(self, node: ast.AST) -> T.MemRef | None:
        """`ping` / `ring[0]` / `ring[i % 2]`: a module-level `pl.MemRef()` declaration named by its variable."""
        name_node, index_node = (node, None) if isinstance(node, ast.Name) else (
            (node.value, node.slice) if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
            else (None, None))
        if name_node is None or name_node.id in self.symbols:
            return None
        decl = self.outside_static(name_node)
        if not isinstance(decl, T.MemRef):
            return None
        if not decl.is_pinned or decl.slot is not None:
            self.fail(ParserTypeError, f"'{name_node.id}' is a MemRef, not a declared allocation", node,
                      hint=f"declare it at module level: {name_node.id} = pl.MemRef() (or pl.MemRef(slots=N))")
        name = self._declaration_name(decl, name_node)
        memref = T.MemRef(self.ptr_var(name), 0, 0, is_pinned=True, slots=decl.slot_count_)
        memref = memref.with_fields(slots=decl.slot_count_)
        if index_node is None:
            return memref  # type: ignore[return-value]
        return self._slot_of(memref, index_node)  # type: ignore[arg-type]

    def _declaration_name(self, decl: T.MemRef, name_node: ast.Name) -> str:
        """The allocation a declaration names: its explicit string, else the variable's name. One declaration
        is one allocation under one name in a program (docs/memory_planning.md, declared allocations)."""
        name = decl.name_hint or name_node.id
        program = self.program
        seen = program.declarations.get(id(decl))
        if seen is None:
            other = program.declaration_names.get(name)
            if other is not None:
                self.fail(ParserTypeError, f"Two separate pl.MemRef() declarations both resolve to the name "
                          f"'{name}'", name_node,
                          hint="give each declaration its own name (pl.MemRef(\"a\"), pl.MemRef(\"b\")), or "
                               "declare it once and use that one variable")
            program.declarations[id(decl)] = (name, name_node.id)
            program.declaration_names[name] = id(decl)
            program._keep.append(decl)  # keep the object alive so its id stays unique
        elif seen[1] != name_node.id:
            self.fail(ParserTypeError, f"Declared allocation '{seen[0]}' is also referenced as '{name_node.id}'",
                      name_node, hint=f"refer to it by one name: write '{seen[1]}' here")
        return name

    def _slot_of(self, memref: T.MemRef, index_node: ast.AST) -> T.MemRef:
        if memref.slot_count_ == 1:
            name = memref.base.name_hint
            self.fail(ParserTypeError, f"'{name}' is declared with a single slot and cannot be subscripted",
                      index_node, hint=f"write '{name}' without an index, or declare more slots: "
                                       f"pl.MemRef(slots=N)")
        index = self.outside_static(index_node)
        if index is MISSING:
            index = self.parse_scalar_expr(index_node, "a slot index")
        try:
            return memref[index]
        except ValueError as exc:
            self.fail(ParserTypeError, str(exc), index_node)

    def _memref_base(self, node: ast.AST) -> E.Var:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.ptr_var(node.value)
        if isinstance(node, ast.Name):
            var = self.symbols.get(node.id)
            if var is None:
                return self.ptr_var(node.id)
            if not isinstance(var.type, T.PtrType):
                self.fail(ParserTypeError, f"a MemRef's base must be a pl.Ptr, but '{node.id}' is {var.type}", node,
                          hint=f"name the allocation: {node.id}: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, size)")
            return var
        self.fail(ParserTypeError, f"a MemRef's base must be an allocation name, got '{ast.unparse(node)}'", node,
                  hint='write pl.MemRef("mem_vec_0", offset, size) or pl.MemRef(mem_vec_0, offset, size)')

    def parse_memref(self, call: ast.Call, slot: ast.AST | None) -> T.MemRef:
        """`pl.MemRef(base, offset, size[, slots=N])[k]`, a declaration `pl.MemRef("name"[, slots=N])[k]`,
        and the legacy `pl.MemRef(addr, size, id)` / `pl.MemRef(space, addr, size, id)`."""
        if len(call.args) == 4:
            space = self.outside_static(call.args[0])
            if not isinstance(space, MemorySpace):
                self.fail(ParserTypeError, "pl.MemRef(space, addr, size, id): the space must be a pl.Mem member",
                          call.args[0])
            ident, size = self.outside_static(call.args[3]), self.outside_static(call.args[2])
            base = self.ptr_var(f"mem_{space.name.lower()}_{ident}")
            return T.MemRef(base, self.parse_scalar_expr(call.args[1], "byte_offset"), size)
        if len(call.args) == 3 and all(isinstance(self.outside_static(a), int) for a in call.args):
            addr, size, ident = (self.outside_static(a) for a in call.args)
            return T.MemRef(self.ptr_var(f"mem_{ident}"), E.ConstInt(addr, DataType.INDEX), size)
        kw = self._keywords(call, ("base", "byte_offset", "size", "slots"))
        slots = self.outside_static(kw["slots"]) if "slots" in kw else None
        if slots is not None and (not isinstance(slots, int) or isinstance(slots, bool) or slots < 1):
            self.fail(ParserTypeError, f"slots= must be a positive integer, got '{ast.unparse(kw['slots'])}'",
                      kw["slots"])
        if "byte_offset" not in kw and "size" not in kw:  # a declaration, named
            name = self.outside_static(kw["base"]) if "base" in kw else ""
            if not isinstance(name, str) or not name:
                self.fail(ParserTypeError, "a declared allocation in a type is written pl.MemRef(\"name\"[, slots=N])",
                          call, hint="declare it at module level (ping = pl.MemRef()) and write ping in the type")
            memref = T.MemRef(self.ptr_var(name), 0, 0, is_pinned=True, slots=slots or 1)
            memref = memref.with_fields(slots=slots or 1)  # type: ignore[assignment]
            return memref if slot is None else self._slot_of(memref, slot)
        if "base" not in kw or "byte_offset" not in kw or "size" not in kw:
            self.fail(ParserTypeError, "pl.MemRef(base, byte_offset, size) needs all three", call)
        base = self._memref_base(kw["base"])
        offset = self.parse_scalar_expr(kw["byte_offset"], "byte_offset")
        size = self.outside_static(kw["size"])
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            self.fail(ParserTypeError, f"a MemRef's size must be a byte count, got '{ast.unparse(kw['size'])}'",
                      kw["size"])
        slot_expr: Any = None
        if slot is not None:
            index = self.outside_static(slot)
            slot_expr = E.ConstInt(index, DataType.INDEX) if isinstance(index, int) else \
                self.parse_scalar_expr(slot, "a slot index")
        return T.MemRef(base, offset, size, slots=slots, slot=slot_expr)

    def _keywords(self, call: ast.Call, names: tuple[str, ...]) -> dict[str, ast.AST]:
        out: dict[str, ast.AST] = {}
        if len(call.args) > len(names):
            self.fail(ParserTypeError, f"too many positional arguments to {ast.unparse(call.func)}", call)
        for name, arg in zip(names, call.args):
            out[name] = arg
        for kw in call.keywords:
            if kw.arg not in names:
                self.fail(ParserTypeError, f"{ast.unparse(call.func)} has no argument '{kw.arg}' "
                                           f"(valid: {', '.join(names)})", kw)
            if kw.arg in out:
                self.fail(ParserTypeError, f"{ast.unparse(call.func)} got '{kw.arg}' twice", kw)
            out[kw.arg] = kw.value
        return out

    def _absent(self, node: ast.AST) -> bool:
        """`None` written out or held by a name from outside the body (`valid_shape=vshape`)."""
        return _is_none(node) or self.outside_static(node) is None

    def _enum_arg(self, node: ast.AST, cls: type) -> Any:
        value = self.outside_static(node)
        if not isinstance(value, cls):
            self.explain_unresolved(node)
            self.fail(ParserTypeError, f"expected a {cls.__name__} value, got '{ast.unparse(node)}'", node)
        return value

    def parse_tile_view(self, call: ast.Call) -> _ViewFields:
        """The fields a `pl.TileView(...)` spells out; the tile type fills in the rest."""
        names = ("valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad", "compact")
        kw = self._keywords(call, names)
        args: dict[str, Any] = {}
        if "valid_shape" in kw and not self._absent(kw["valid_shape"]):
            args["valid_shape"] = self.parse_dims(kw["valid_shape"], "valid_shape")
        if "stride" in kw and not self._absent(kw["stride"]):
            args["stride"] = self.parse_dims(kw["stride"], "stride")
        if "start_offset" in kw and not self._absent(kw["start_offset"]):
            args["start_offset"] = self.parse_scalar_expr(kw["start_offset"], "start_offset")
        for key, cls in (("blayout", TileLayout), ("slayout", TileLayout), ("pad", PadValue),
                         ("compact", CompactMode)):
            if key in kw:
                args[key] = self._enum_arg(kw[key], cls)
        if "fractal" in kw:
            value = self.outside_static(kw["fractal"])
            if not isinstance(value, int) or isinstance(value, bool):
                self.fail(ParserTypeError, "fractal= must be an integer", kw["fractal"])
            args["fractal"] = value
        return _ViewFields(args)

    def parse_tensor_view(self, call: ast.Call) -> T.TensorView:
        kw = self._keywords(call, ("stride", "layout", "valid_shape", "pad"))
        args: dict[str, Any] = {}
        if "stride" in kw and not self._absent(kw["stride"]):
            args["stride"] = self.parse_dims(kw["stride"], "stride")
        if "valid_shape" in kw and not self._absent(kw["valid_shape"]):
            args["valid_shape"] = self.parse_dims(kw["valid_shape"], "valid_shape")
        if "layout" in kw and not self._absent(kw["layout"]):
            args["layout"] = self._enum_arg(kw["layout"], TensorLayout)
        if "pad" in kw:
            args["pad"] = self._enum_arg(kw["pad"], PadValue)
        return T.TensorView(**args)


class _ViewFields(dict):  # type: ignore[type-arg]
    """Keyword arguments of a `pl.TileView(...)` annotation entry."""


def _held(value: Any) -> str:
    """" (which holds the int 3)" for a message about a name whose value is the wrong kind."""
    if value is MISSING or isinstance(value, E.Expr):
        return ""
    return f" (which holds the {python_type_name(value)} {value!r})"


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
