"""The golden loop: candidate rows (``rows``), the review log and golden-set versions
(``review``), the review page (``web``), exports for eval tools (``export``), golden probes
(``probes`` scores them, ``probe_client`` sends them), release comparison (``compare``) and
retrieval metrics (``retrieval``)."""
