import sys

from validator.cli.commands import main

sys.exit(main())
