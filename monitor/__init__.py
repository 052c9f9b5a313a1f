"""ragmon: a production monitor for retrieval-augmented generation."""
