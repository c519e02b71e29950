"""What `import pypto` gives a program read as text (pypto_core/language/dsl_modules.py): the `pl`
namespace as `language`, and `DataType`."""

from pypto_core.ir.dtypes import DataType
from pypto_core.language import pl as language

__pypto_dsl__ = "root"

__all__ = ["DataType", "language"]
