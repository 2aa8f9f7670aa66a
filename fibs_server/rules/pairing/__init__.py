"""How tournaments pair their players, pure (docs/TOURNAMENTS.md)."""
