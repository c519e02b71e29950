"""`pypto trace`: the program after every pass of a pipeline, as one self-contained HTML page.

`collect_trace(program, manager)` runs a PassManager with a TraceInstrument and returns a `Trace`;
`render_html(trace)` turns it into the page (inline CSS and JS, no network).
"""

from pypto_core.trace.collector import Trace, TraceStep, collect_trace
from pypto_core.trace.render import render_html

__all__ = ["Trace", "TraceStep", "collect_trace", "render_html"]
