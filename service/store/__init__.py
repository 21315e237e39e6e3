"""Redis, the single source of truth: the match store and its atomic scripts, the embedded Redis, and
the live feed of match event streams. Imports only the modules at ``service/``'s top level."""
