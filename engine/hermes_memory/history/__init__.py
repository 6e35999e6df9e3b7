"""History of memory and skills: every version, who made it, and undo.

Modules: ``storage`` (the append-only log and blob pack under ``.memory-studio/history``),
``recording`` (the hooks the engine's writers call, and write origins), ``capture``
(changes made by someone else), ``backfill`` (past memory writes from ``state.db``),
``ledger`` (upstream's curator ledger as skill history), ``timeline`` (versions, diffs,
lineage, the state at a date), ``undo`` (restore, taught, revert), ``provenance`` and
``commands`` (the CLI).

This package file imports nothing: the memory store and the skill functions import
``recording`` from their write paths, and everything else here imports them.
"""
