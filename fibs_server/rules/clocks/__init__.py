"""The arithmetic of match clocks, apart from the match's rules: pure values on seconds that
the lobby's turn clock (lobby/play/turn_clock.py) measures and owns."""
