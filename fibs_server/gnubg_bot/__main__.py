import sys

from fibs_server.gnubg_bot.cli import main

sys.exit(main())
