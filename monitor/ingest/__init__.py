"""Records to traces: native JSON decoding (``native``), OTLP decoding (``otlp``), span
assembly per trace (``assembly``) and the mapping of the span conventions
(``conventions``). Any input becomes a trace, a dead letter with a reason, or nothing to
evaluate; nothing here raises on input."""
