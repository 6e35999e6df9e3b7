"""Memory providers bundled with the engine; discovery scans this folder first (spec §7.1)."""
