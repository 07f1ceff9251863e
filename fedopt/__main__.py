import sys

from fedopt.cli import main

sys.exit(main())
