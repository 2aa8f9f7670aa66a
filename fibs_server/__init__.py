"""fibs_server: a FIBS-compatible backgammon server."""
