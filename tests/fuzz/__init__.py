"""A program generator, mutators and an oracle for the promises of oracle.py (see campaign.py)."""
