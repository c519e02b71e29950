"""`ir.IRBuilder` and its context objects (docs/ir_builder.md)."""

from pypto_core.ir.builder.frame import BuilderFrame
from pypto_core.ir.builder.if_scope import IfStmtBuilder, ScopeBuilder
from pypto_core.ir.builder.ir_builder import IRBuilder
from pypto_core.ir.builder.loops import ForLoopBuilder, LoopBuilder, WhileLoopBuilder
from pypto_core.ir.builder.program_function import FunctionBuilder, ProgramBuilder

__all__ = ["BuilderFrame", "ForLoopBuilder", "FunctionBuilder", "IfStmtBuilder", "IRBuilder", "LoopBuilder",
           "ProgramBuilder", "ScopeBuilder", "WhileLoopBuilder"]
