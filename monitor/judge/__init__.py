"""The sampled judge: verdicts on faithfulness, from a model or from heuristics."""
