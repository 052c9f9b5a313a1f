"""The model layer and its plain helpers, importing nothing else of ragmon's: the trace and
evaluation types (``model``), the lines written (``lines``), evidence and verdicts, the
errors, logging, labels, statistics, PII redaction, and the version. Everything else imports
from here; nothing here imports a wing. The package itself imports nothing, so a light
command (``ragmon --help``) that needs one helper does not load the models."""
