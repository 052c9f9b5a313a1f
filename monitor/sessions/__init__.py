"""Conversations: the turns of a session paired in time order, and what the user's next turn
says about the answer before it (``signals``). ``join`` holds the turns and releases the
pairs; ``stage`` puts them on the pipeline's path, in memory or through a Kafka topic keyed by
session so that every session has one owner in a consumer group."""
