from fedopt.cli import entry

entry()
