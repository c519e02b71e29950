"""pass_dispatch: passes over the dispatches (calls of program functions) that host-side code makes."""
