"""`from pypto.ir.printer import python_print`."""

from pypto_core.language.printer import python_print, python_print_type

__all__ = ["python_print", "python_print_type"]
