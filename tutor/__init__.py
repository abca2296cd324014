"""osmosis-tutor: rules engine, solver, hints, review and lessons for Osmosis patience."""

__version__ = "0.1.0"
