"""The ``ragmon`` command line: ``cli`` parses (light: ``--help`` and ``--version`` import
nothing heavy), ``dispatch`` runs the parsed command."""
