"""A program generator, mutators and an oracle for the promises of issue 15 (see campaign.py)."""
