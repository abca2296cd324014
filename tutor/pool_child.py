"""Imported first by the pool's fork server: it ends when the process that started it ends.

The fork server that :class:`tutor.pool.WorkerPool` uses makes the workers;
it is a child of the ``osmosis`` process. Killed (SIGKILL) that process
cannot stop anything, so the fork server asks the system, as this module is
imported there, for a SIGTERM when its parent ends; each worker asks the same
as it starts (:func:`tutor.pool.end_with_parent`).
"""

from __future__ import annotations

from .pool import end_with_parent

end_with_parent()
