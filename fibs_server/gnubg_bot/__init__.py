"""`fibs-gnubg-bot`: a classic external FIBS bot. It logs in over CLIP like any client program
and lets GNU Backgammon (a separate `gnubg -t` process, through its `external` interface)
make every decision. A client of any FIBS-compatible server: it imports nothing of the server
(tests/test_layers.py), so our boards are read by gnubg's parser, not by ours."""
