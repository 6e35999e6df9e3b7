"""The built-in bounded memory store: entries, scanning, locking, rendering, the memory tool."""
