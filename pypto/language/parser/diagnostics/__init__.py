"""Parser exceptions (docs/dsl.md, errors)."""

from pypto_core.language.parser.errors import (
    BUG_CLASS_EXCEPTIONS,
    ErrorRenderer,
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    ScopeIsolationError,
    SSAViolationError,
    UndefinedVariableError,
    UnsupportedFeatureError,
    concise_error_message,
)

__all__ = ["BUG_CLASS_EXCEPTIONS", "ErrorRenderer", "InvalidOperationError", "ParserError", "ParserSyntaxError",
           "ParserTypeError", "SSAViolationError", "ScopeIsolationError", "UndefinedVariableError",
           "UnsupportedFeatureError", "concise_error_message"]
