"""Export and import of one scope (docs/export.md): `dump` writes a scope as typed JSON Lines
records, `check` validates a file before anything is written, `restore` writes it back."""
