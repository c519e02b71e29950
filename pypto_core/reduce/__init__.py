"""Crash reproducers and the program reducer (`pypto compile --replay`, `pypto reduce`).

* `reproducer`: write and read the one-file reproducer of a failing pass;
* `strategies`: the ways a program is made smaller (statements, functions, loop trips, scopes, shapes);
* `reducer`: the search that applies them while the failure persists.
"""
