#!/usr/bin/env python3
"""Run the pet: `python run.py` (see `python run.py --help`)."""

from pet.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
